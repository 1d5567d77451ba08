/* SPDX-License-Identifier: MIT */
/*
 * Tests of tools/xdrgen output for sample.x (generated at build time):
 * round trips of every language feature, every truncation point, bound
 * violations, allocation only in proportion to received bytes, and
 * 100,000-element lists walked in a thread with a 64 KiB stack.
 */
#include <pthread.h>
#include <stdint.h>

#include "../../tap.h"
#include "xdrtest.h"
#include "sample.h"

static struct guard g;
static alignas(max_align_t) uint8_t arena_mem[1 << 20];
static uint8_t encbuf[1 << 16];

DEC_FN(everything, struct everything)
DEC_FN(point, struct point)
DEC_FN(shape, struct shape)
DEC_FN(result, struct result)
DEC_FN(opt_name, struct opt_name)
DEC_FN(only_void, struct only_void)
DEC_FN(tagged, struct tagged)
DEC_FN(node_ptr, node_ptr)
DEC_FN(int_vec, int_vec)
DEC_FN(int_fix, int_fix)
DEC_FN(point_vec, point_vec)
DEC_FN(var_blob, var_blob)
DEC_FN(color, enum color)
DEC_FN(level, enum level)
DEC_FN(tree, struct tree)
DEC_FN(expr, struct expr)

#define BYTES(s) ((struct xdr_bytes){ (const uint8_t *)(s), sizeof(s) - 1 })

/* Decode @len bytes at the guard page with a fresh arena over arena_mem. */
static bool dec_at(const void *buf, size_t len, dec_fn fn, void *out,
		   struct xdr_arena *a)
{
	struct xdr_dec d;

	xdr_arena_init(a, arena_mem, sizeof(arena_mem));
	xdr_dec_init(&d, guard_put(&g, buf, len), len, a);
	return fn(&d, out) && !xdr_dec_left(&d);
}

/* ---------------------------------------------------------------- */
/* A value using every feature, and a deep comparison                */

static int32_t ivar_v[] = { 1, -2, 3 };
static uint64_t hvar_v[] = { UINT64_MAX, 0, 42 };
static int32_t iv2_v[] = { 7, 8 };
static struct point pvar_v[] = { { 1, 2 }, { -3, 4 }, { 5, 6 } };
static struct point pv2_v[] = { { 9, 10 }, { 11, 12 } };
static struct point opt_p = { -100, 200 };
static int32_t opt_i = 77;
static struct shape shapes_v[4];
static struct node nodes_v[3];
static struct link links_v[2];
static struct tree tree_v[3];
static struct binop bop;

static void fill(struct everything *v)
{
	int i;

	memset(v, 0, sizeof(*v));
	v->i = -5;
	v->u = 0xdeadbeef;
	v->un = 3;
	v->h = INT64_MIN + 1;
	v->uh = UINT64_MAX - 1;
	v->flag = true;
	v->flag2 = false;
	v->col = BLUE;
	v->col2 = NEGATIVE;
	v->lvl = HIGH;
	v->th = 1ull << 40;
	memcpy(v->fo, "fixed", 5);
	v->vo = BYTES("varop");
	v->vou = (struct xdr_bytes){ NULL, 0 };
	v->s = BYTES("string16");
	v->su = BYTES("an unbounded string");
	memcpy(v->verf.val, "verifier", 8);
	v->blob = BYTES("blob");
	v->nm = BYTES("nm");
	for (i = 0; i < SAMPLE_MAX; i++)
		v->ifix[i] = i * i - 10;
	v->ivar.len = 3;
	v->ivar.val = ivar_v;
	v->hvar.len = 3;
	v->hvar.val = hvar_v;
	v->iv2 = (int_vec){ 2, iv2_v };
	v->if2 = (int_fix){ { 1, 2, 3 } };
	v->pfix[0] = (struct point){ 1, 1 };
	v->pfix[1] = (struct point){ 2, 2 };
	v->pvar.len = 3;
	v->pvar.val = pvar_v;
	v->pf2 = (point_fix){ { { 3, 3 }, { 4, 4 } } };
	v->pv2 = (point_vec){ 2, pv2_v };
	v->opt_point = &opt_p;
	v->opt_absent = NULL;
	v->opt_int = &opt_i;
	v->sh.c = RED;
	v->sh.u.p = (struct point){ 5, 5 };
	shapes_v[0].c = GREEN;
	shapes_v[0].u.p = (struct point){ -7, 7 };
	shapes_v[1].c = BLUE;
	shapes_v[2].c = NEGATIVE;
	shapes_v[2].u.other = -9;
	shapes_v[3].c = RED;
	shapes_v[3].u.p = (struct point){ 0, 1 };
	v->shapes.len = 4;
	v->shapes.val = shapes_v;
	v->shfix[0].c = BLUE;
	v->shfix[1].c = NEGATIVE;
	v->shfix[1].u.other = 11;
	v->res.status = SAMPLE_OCT;
	v->res.u.big = 99;
	v->on.present = true;
	v->on.u.name = BYTES("opt");
	v->ov.k = 1234;
	v->tg.kind = 2;
	v->tg.u.s = BYTES("tagged");
	v->pr = (struct pair){ 1, -2 };
	v->anon.inner_a = 3;
	memcpy(v->anon.inner_b, "xyz", 3);
	v->anon.inner_u.l = HIGH;
	v->anon.inner_u.u.hi = (struct point){ 7, 8 };
	v->anon_u.l = LOW;
	v->anon_u.u.lo = 9;
	for (i = 0; i < 3; i++) {
		nodes_v[i].id = 100u + (uint32_t)i;
		nodes_v[i].name = BYTES("node");
		nodes_v[i].next = i < 2 ? &nodes_v[i + 1] : NULL;
	}
	v->list = &nodes_v[0];
	links_v[0] = (struct link){ 1, &links_v[1] };
	links_v[1] = (struct link){ 2, NULL };
	v->links = &links_v[0];
	tree_v[0] = (struct tree){ 1, &tree_v[1], &tree_v[2] };
	tree_v[1] = (struct tree){ 2, NULL, NULL };
	tree_v[2] = (struct tree){ 3, NULL, NULL };
	v->t = &tree_v[0];
	bop.lhs.op = 0;
	bop.lhs.u.lit = 4;
	bop.rhs.op = 0;
	bop.rhs.u.lit = 5;
	v->ex.op = 1;
	v->ex.u.bin = &bop;
}

static bool beq(struct xdr_bytes a, struct xdr_bytes b)
{
	return a.len == b.len && (!a.len || !memcmp(a.data, b.data, a.len));
}

static bool pteq(const struct point *a, const struct point *b)
{
	return a->x == b->x && a->y == b->y;
}

static bool shape_eq(const struct shape *a, const struct shape *b)
{
	if (a->c != b->c)
		return false;
	switch (a->c) {
	case RED:
	case GREEN:
		return pteq(&a->u.p, &b->u.p);
	case BLUE:
		return true;
	default:
		return a->u.other == b->u.other;
	}
}

static bool tree_eq(const struct tree *a, const struct tree *b)
{
	if (!a || !b)
		return a == b;
	return a->val == b->val && tree_eq(a->left, b->left) &&
	       tree_eq(a->right, b->right);
}

static bool expr_eq(const struct expr *a, const struct expr *b)
{
	if (a->op != b->op)
		return false;
	if (a->op == 0)
		return a->u.lit == b->u.lit;
	if (!a->u.bin || !b->u.bin)
		return a->u.bin == b->u.bin;
	return expr_eq(&a->u.bin->lhs, &b->u.bin->lhs) &&
	       expr_eq(&a->u.bin->rhs, &b->u.bin->rhs);
}

static int diff_everything(const struct everything *a, const struct everything *b)
{
	const struct node *na, *nb;
	const struct link *la, *lb;
	int bad = 0;
	uint32_t i;

#define CHECK(cond) do { if (!(cond)) { printf("# differs: %s\n", #cond); bad++; } } while (0)
	CHECK(a->i == b->i && a->u == b->u && a->un == b->un);
	CHECK(a->h == b->h && a->uh == b->uh && a->th == b->th);
	CHECK(a->flag == b->flag && a->flag2 == b->flag2);
	CHECK(a->col == b->col && a->col2 == b->col2 && a->lvl == b->lvl);
	CHECK(!memcmp(a->fo, b->fo, 5) && !memcmp(a->verf.val, b->verf.val, 8));
	CHECK(beq(a->vo, b->vo) && beq(a->vou, b->vou));
	CHECK(beq(a->s, b->s) && beq(a->su, b->su));
	CHECK(beq(a->blob, b->blob) && beq(a->nm, b->nm));
	CHECK(!memcmp(a->ifix, b->ifix, sizeof(a->ifix)));
	CHECK(a->ivar.len == b->ivar.len &&
	      !memcmp(a->ivar.val, b->ivar.val, a->ivar.len * sizeof(int32_t)));
	CHECK(a->hvar.len == b->hvar.len &&
	      !memcmp(a->hvar.val, b->hvar.val, a->hvar.len * sizeof(uint64_t)));
	CHECK(a->iv2.len == b->iv2.len &&
	      !memcmp(a->iv2.val, b->iv2.val, a->iv2.len * sizeof(int32_t)));
	CHECK(!memcmp(a->if2.val, b->if2.val, sizeof(a->if2.val)));
	CHECK(pteq(&a->pfix[0], &b->pfix[0]) && pteq(&a->pfix[1], &b->pfix[1]));
	CHECK(pteq(&a->pf2.val[0], &b->pf2.val[0]) &&
	      pteq(&a->pf2.val[1], &b->pf2.val[1]));
	CHECK(a->pvar.len == b->pvar.len && a->pv2.len == b->pv2.len);
	for (i = 0; i < a->pvar.len && i < b->pvar.len; i++)
		CHECK(pteq(&a->pvar.val[i], &b->pvar.val[i]));
	for (i = 0; i < a->pv2.len && i < b->pv2.len; i++)
		CHECK(pteq(&a->pv2.val[i], &b->pv2.val[i]));
	CHECK(a->opt_point && b->opt_point && pteq(a->opt_point, b->opt_point));
	CHECK(!a->opt_absent && !b->opt_absent);
	CHECK(a->opt_int && b->opt_int && *a->opt_int == *b->opt_int);
	CHECK(shape_eq(&a->sh, &b->sh));
	CHECK(a->shapes.len == b->shapes.len);
	for (i = 0; i < a->shapes.len && i < b->shapes.len; i++)
		CHECK(shape_eq(&a->shapes.val[i], &b->shapes.val[i]));
	CHECK(shape_eq(&a->shfix[0], &b->shfix[0]) &&
	      shape_eq(&a->shfix[1], &b->shfix[1]));
	CHECK(a->res.status == b->res.status && a->res.u.big == b->res.u.big);
	CHECK(a->on.present == b->on.present && beq(a->on.u.name, b->on.u.name));
	CHECK(a->ov.k == b->ov.k);
	CHECK(a->tg.kind == b->tg.kind && beq(a->tg.u.s, b->tg.u.s));
	CHECK(a->pr.a == b->pr.a && a->pr.b == b->pr.b);
	CHECK(a->anon.inner_a == b->anon.inner_a &&
	      !memcmp(a->anon.inner_b, b->anon.inner_b, 3));
	CHECK(a->anon.inner_u.l == b->anon.inner_u.l &&
	      pteq(&a->anon.inner_u.u.hi, &b->anon.inner_u.u.hi));
	CHECK(a->anon_u.l == b->anon_u.l && a->anon_u.u.lo == b->anon_u.u.lo);
	for (na = a->list, nb = b->list; na && nb; na = na->next, nb = nb->next)
		CHECK(na->id == nb->id && beq(na->name, nb->name));
	CHECK(!na && !nb);
	for (la = a->links, lb = b->links; la && lb; la = la->next, lb = lb->next)
		CHECK(la->v == lb->v);
	CHECK(!la && !lb);
	CHECK(tree_eq(a->t, b->t));
	CHECK(expr_eq(&a->ex, &b->ex));
#undef CHECK
	return bad;
}

/* The first 76 bytes of fill()'s encoding, computed by hand. */
static const uint8_t everything_head[] = {
	0xff, 0xff, 0xff, 0xfb,				/* i = -5 */
	0xde, 0xad, 0xbe, 0xef,				/* u */
	0, 0, 0, 3,					/* un */
	0x80, 0, 0, 0, 0, 0, 0, 1,			/* h = INT64_MIN + 1 */
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,	/* uh */
	0, 0, 0, 1,					/* flag */
	0, 0, 0, 0,					/* flag2 */
	0, 0, 0, 7,					/* col = BLUE */
	0xff, 0xff, 0xff, 0xfe,				/* col2 = NEGATIVE */
	0, 0, 0, 2,					/* lvl = HIGH */
	0, 0, 1, 0, 0, 0, 0, 0,				/* th = 2^40 */
	'f', 'i', 'x', 'e', 'd', 0, 0, 0,		/* fo[5] */
	0, 0, 0, 5, 'v', 'a', 'r', 'o', 'p', 0, 0, 0,	/* vo<8> */
};
enum { OFF_FLAG = 28, OFF_COL = 36, OFF_COL2 = 40, OFF_LVL = 44, OFF_VO = 64 };

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void test_everything(void)
{
	static uint8_t again[sizeof(encbuf)], patched[sizeof(encbuf)];
	static struct everything in, out;
	struct xdr_arena a;
	struct xdr_enc e;
	size_t len;

	fill(&in);
	xdr_enc_init(&e, encbuf, sizeof(encbuf));
	ok(xdr_enc_everything(&e, &in), "everything: encodes");
	len = xdr_enc_len(&e);
	ok(len > sizeof(everything_head) &&
	   bytes_eq(encbuf, sizeof(everything_head), everything_head,
		    sizeof(everything_head)),
	   "everything: first %zu bytes as computed by hand",
	   sizeof(everything_head));
	ok(sizeof(struct everything) <= sizeof(check_obj), "scratch is large enough");
	memset(&out, 0x5a, sizeof(out));
	ok(dec_at(encbuf, len, dec_everything, &out, &a), "everything: decodes");
	ok(diff_everything(&in, &out) == 0, "everything: decoded == original");
	xdr_enc_init(&e, again, sizeof(again));
	ok(xdr_enc_everything(&e, &out) && bytes_eq(again, xdr_enc_len(&e), encbuf, len),
	   "everything: re-encoding the decoded value gives the same bytes");
	ok(check_prefixes(&g, encbuf, len, dec_everything) == 0,
	   "everything: all %zu strict prefixes fail, the whole decodes", len);

	/* Wire values the decoder must refuse, patched into a good message. */
	{
		static const struct { size_t off; uint32_t v; const char *what; } bad[] = {
			{ OFF_FLAG, 2, "bool 2" },
			{ OFF_FLAG, 0xffffffff, "bool 0xffffffff" },
			{ OFF_FLAG + 4, 2, "typedef'd bool 2" },
			{ OFF_COL, 3, "enum color 3 (not a member)" },
			{ OFF_COL2, 8, "typedef'd enum color 8" },
			{ OFF_LVL, 0, "enum level 0 (inline enum)" },
			{ OFF_VO, SAMPLE_MAX + 1, "opaque<SAMPLE_MAX> count 9" },
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			memcpy(patched, encbuf, len);
			put32(patched + bad[i].off, bad[i].v);
			ok(!dec_at(patched, len, dec_everything, &out, &a),
			   "everything: %s rejected", bad[i].what);
		}
	}

	/* Values the encoder must refuse. */
	{
		static struct everything v;

		fill(&v);
		v.vo.len = SAMPLE_MAX + 1;
		xdr_enc_init(&e, again, sizeof(again));
		ok(!xdr_enc_everything(&e, &v), "enc: opaque<8> of 9 refused");
		fill(&v);
		v.pvar.len = 4;
		xdr_enc_init(&e, again, sizeof(again));
		ok(!xdr_enc_everything(&e, &v), "enc: point<3> of 4 refused");
		fill(&v);
		v.ivar.len = SAMPLE_MAX + 1;
		xdr_enc_init(&e, again, sizeof(again));
		ok(!xdr_enc_everything(&e, &v), "enc: int<8> of 9 refused");
		fill(&v);
		v.shapes.len = 5;
		xdr_enc_init(&e, again, sizeof(again));
		ok(!xdr_enc_everything(&e, &v), "enc: shape<4> of 5 refused");
		fill(&v);
		v.nm.len = SAMPLE_NAME_MAX + 1;
		xdr_enc_init(&e, again, sizeof(again));
		ok(!xdr_enc_everything(&e, &v), "enc: string<16> of 17 refused");
		fill(&v);
		v.col = (enum color)3;
		xdr_enc_init(&e, again, sizeof(again));
		ok(!xdr_enc_everything(&e, &v), "enc: enum value 3 refused");
		fill(&v);
		v.res.status = 2;
		xdr_enc_init(&e, again, sizeof(again));
		ok(!xdr_enc_everything(&e, &v),
		   "enc: union discriminant without arm or default refused");
		fill(&v);
		v.anon.inner_u.l = (enum level)5;
		xdr_enc_init(&e, again, sizeof(again));
		ok(!xdr_enc_everything(&e, &v), "enc: nested union enum 5 refused");
	}

	/* Every encode capacity short of the length fails within bounds. */
	{
		size_t cap;
		int wrong = 0;

		for (cap = 0; cap < len; cap++) {
			xdr_enc_init(&e, guard_room(&g, cap), cap);
			if (xdr_enc_everything(&e, &in))
				wrong++;
		}
		ok(!wrong, "everything: every buffer shorter than %zu refused", len);
	}
}

/* ---------------------------------------------------------------- */
/* Small types against hand-computed bytes                           */
/* Rejected inputs are otherwise complete: only the bad value fails.  */

struct wire_case {
	const char *what;
	dec_fn fn;
	uint8_t b[40];
	size_t len;
	bool good;
};

static const struct wire_case wire_cases[] = {
	{ "point {-1, 2}", dec_point,
	  { 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 2 }, 8, true },
	{ "shape GREEN (shared arm)", dec_shape,
	  { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2 }, 12, true },
	{ "shape BLUE (void arm)", dec_shape, { 0, 0, 0, 7 }, 4, true },
	{ "shape NEGATIVE (default arm)", dec_shape,
	  { 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 5 }, 8, true },
	{ "shape 3: not a color", dec_shape, { 0, 0, 0, 3, 0, 0, 0, 5 }, 8, false },
	{ "result 0: hyper arm", dec_result,
	  { 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 12, true },
	{ "result -1: void arm", dec_result, { 0xff, 0xff, 0xff, 0xff }, 4, true },
	{ "result 017: octal case", dec_result,
	  { 0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, 1 }, 12, true },
	{ "result 2: no arm, no default", dec_result, { 0, 0, 0, 2 }, 4, false },
	{ "opt_name TRUE \"ab\"", dec_opt_name,
	  { 0, 0, 0, 1, 0, 0, 0, 2, 'a', 'b', 0, 0 }, 12, true },
	{ "opt_name FALSE", dec_opt_name, { 0, 0, 0, 0 }, 4, true },
	{ "opt_name bool discriminant 2", dec_opt_name, { 0, 0, 0, 2 }, 4, false },
	{ "opt_name name of 17 > 16", dec_opt_name,
	  { 0, 0, 0, 1, 0, 0, 0, 17, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h',
	    'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 0, 0, 0 }, 28, false },
	{ "only_void any value", dec_only_void, { 0, 0, 0, 99 }, 4, true },
	{ "tagged 1: int", dec_tagged, { 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff }, 8, true },
	{ "tagged 2: string", dec_tagged,
	  { 0, 0, 0, 2, 0, 0, 0, 1, 'x', 0, 0, 0 }, 12, true },
	{ "tagged 99: default void", dec_tagged, { 0, 0, 0, 99 }, 4, true },
	{ "node_ptr: two nodes", dec_node_ptr,
	  { 0, 0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 1, 'a', 0, 0, 0, 0, 0, 0, 1,
	    0, 0, 0, 11, 0, 0, 0, 1, 'b', 0, 0, 0, 0, 0, 0, 0 }, 36, true },
	{ "node_ptr: empty", dec_node_ptr, { 0, 0, 0, 0 }, 4, true },
	{ "node_ptr: bool 2", dec_node_ptr,
	  { 0, 0, 0, 2, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0 }, 16, false },
	{ "node_ptr: next bool 2", dec_node_ptr,
	  { 0, 0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 2,
	    0, 0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0 }, 28, false },
	{ "int_fix {1, 2, 3}", dec_int_fix,
	  { 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3 }, 12, true },
	{ "int_vec<8> {5}", dec_int_vec, { 0, 0, 0, 1, 0, 0, 0, 5 }, 8, true },
	{ "int_vec<8> count 9", dec_int_vec,
	  { 0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4,
	    0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 7, 0, 0, 0, 8, 0, 0, 0, 9 }, 40, false },
	{ "var_blob<16> of 17", dec_var_blob,
	  { 0, 0, 0, 17, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	    17, 0, 0, 0 }, 24, false },
	{ "color NEGATIVE", dec_color, { 0xff, 0xff, 0xff, 0xfe }, 4, true },
	{ "color -1", dec_color, { 0xff, 0xff, 0xff, 0xff }, 4, false },
	{ "level HIGH", dec_level, { 0, 0, 0, 2 }, 4, true },
	{ "level 3", dec_level, { 0, 0, 0, 3 }, 4, false },
};

static void test_wire_cases(void)
{
	struct xdr_arena a;
	size_t i;

	for (i = 0; i < sizeof(wire_cases) / sizeof(wire_cases[0]); i++) {
		const struct wire_case *c = &wire_cases[i];

		if (c->good)
			ok(check_prefixes(&g, c->b, c->len, c->fn) == 0,
			   "%s: decodes, every prefix fails", c->what);
		else
			ok(!dec_at(c->b, c->len, c->fn, check_obj, &a),
			   "%s: rejected", c->what);
	}
}

/* Encodings of small values compared with the same hand-made bytes. */
static void test_wire_encode(void)
{
	static const uint8_t w_shape[] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2 };
	static const uint8_t w_list[] = {
		0, 0, 0, 1, 0, 0, 0, 10, 0, 0, 0, 1, 'a', 0, 0, 0, 0, 0, 0, 1,
		0, 0, 0, 11, 0, 0, 0, 1, 'b', 0, 0, 0, 0, 0, 0, 0,
	};
	static const uint8_t w_tag[] = { 0, 0, 0, 2, 0, 0, 0, 1, 'x', 0, 0, 0 };
	struct node n2 = { 11, BYTES("b"), NULL }, n1 = { 10, BYTES("a"), &n2 };
	struct shape sh = { .c = GREEN, .u.p = { 1, 2 } };
	struct tagged tg = { .kind = 2, .u.s = BYTES("x") };
	node_ptr head = &n1;
	uint8_t buf[64];
	struct xdr_enc e;

	xdr_enc_init(&e, buf, sizeof(buf));
	ok(xdr_enc_shape(&e, &sh) &&
	   bytes_eq(buf, xdr_enc_len(&e), w_shape, sizeof(w_shape)),
	   "enc shape GREEN {1, 2}");
	xdr_enc_init(&e, buf, sizeof(buf));
	ok(xdr_enc_node_ptr(&e, &head) &&
	   bytes_eq(buf, xdr_enc_len(&e), w_list, sizeof(w_list)),
	   "enc node list of two");
	xdr_enc_init(&e, buf, sizeof(buf));
	ok(xdr_enc_tagged(&e, &tg) &&
	   bytes_eq(buf, xdr_enc_len(&e), w_tag, sizeof(w_tag)),
	   "enc tagged string");
}

/* ---------------------------------------------------------------- */
/* Allocation only in proportion to the bytes received               */

static void test_allocation(void)
{
	static const uint8_t lying[] = {	/* count 1000, two points sent */
		0, 0, 0x03, 0xe8, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4,
	};
	static const uint8_t lying_max[] = { 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 1 };
	static const uint8_t three[] = {
		0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3,
		0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 6,
	};
	static const uint8_t short_ints[] = { 0, 0, 0, 8, 0, 0, 0, 1, 0, 0, 0, 2 };
	static const uint8_t present_nothing[] = { 0, 0, 0, 1 };
	static const uint8_t node_short[] = {	/* next present, never sent */
		0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1,
	};
	static alignas(max_align_t) uint8_t tiny[64];
	struct xdr_arena a;
	struct xdr_dec d;
	point_vec pv;
	int_vec iv;
	node_ptr np;

	xdr_arena_init(&a, tiny, sizeof(tiny));
	xdr_dec_init(&d, guard_put(&g, lying, sizeof(lying)), sizeof(lying), &a);
	ok(!xdr_dec_point_vec(&d, &pv) && a.used == 0,
	   "count 1000 with 16 bytes sent: refused, tiny arena untouched");
	ok(!dec_at(lying, sizeof(lying), dec_point_vec, &pv, &a) && a.used == 0,
	   "same with a 1 MiB arena: refused before allocating");
	ok(!dec_at(lying_max, sizeof(lying_max), dec_point_vec, &pv, &a) &&
	   a.used == 0, "count 0x7fffffff: refused before allocating");
	ok(!dec_at(short_ints, sizeof(short_ints), dec_int_vec, &iv, &a) &&
	   a.used == 0, "int<8> count 8 with 8 bytes sent: nothing allocated");
	ok(!dec_at(present_nothing, sizeof(present_nothing), dec_node_ptr, &np, &a) &&
	   a.used == 0, "optional present, no bytes after: nothing allocated");
	ok(!dec_at(node_short, sizeof(node_short), dec_node_ptr, &np, &a) &&
	   a.used == sizeof(struct node),
	   "list node cut short: only the node whose bytes arrived allocated");
	ok(dec_at(three, sizeof(three), dec_point_vec, &pv, &a) && pv.len == 3 &&
	   a.used == 3 * sizeof(struct point) && pv.val[2].x == 5,
	   "point<> of 3: exactly 3 points allocated");
	xdr_dec_init(&d, guard_put(&g, three, sizeof(three)), sizeof(three), NULL);
	ok(!xdr_dec_point_vec(&d, &pv), "array without an arena fails cleanly");
	{
		static const uint8_t zero[] = { 0, 0, 0, 0 };

		xdr_dec_init(&d, guard_put(&g, zero, 4), 4, NULL);
		ok(xdr_dec_point_vec(&d, &pv) && pv.len == 0 && pv.val == NULL,
		   "empty array needs no arena: val NULL");
	}
}

/* ---------------------------------------------------------------- */
/* Recursion: lists by loop, everything else depth-bounded           */

static uint8_t *chain_bytes(size_t n, size_t *len)
{
	uint8_t *b = malloc(n * 12), *p = b;	/* tree: left chain of n */
	size_t i;

	for (i = 0; i < n; i++, p += 8) {
		put32(p, (uint32_t)i);
		put32(p + 4, i + 1 < n);	/* left present */
	}
	for (i = 0; i < n; i++, p += 4)
		put32(p, 0);			/* right absent */
	*len = (size_t)(p - b);
	return b;
}

static uint8_t *expr_bytes(size_t n, size_t *len)
{
	uint8_t *b = malloc(n * 16 + 8), *p = b;	/* n nested binops */
	size_t i;

	for (i = 0; i < n; i++, p += 8) {
		put32(p, 1);		/* op 1 */
		put32(p + 4, 1);	/* bin present */
	}
	put32(p, 0);			/* innermost lhs: literal */
	put32(p + 4, 42);
	p += 8;
	for (i = 0; i < n; i++, p += 8) {
		put32(p, 0);		/* each rhs: literal */
		put32(p + 4, (uint32_t)i);
	}
	*len = (size_t)(p - b);
	return b;
}

#define BIG 100000

struct small_stack_job {
	struct node *nodes;
	struct link *links;
	uint8_t *buf;
	size_t cap;
	uint8_t *arena;
	size_t arena_cap;
	int results[12];
};

static void *small_stack(void *arg)
{
	struct small_stack_job *j = arg;
	struct xdr_arena a;
	struct xdr_enc e;
	struct xdr_dec d;
	node_ptr head = &j->nodes[0], out;
	link_ptr lhead = &j->links[0], lout;
	struct expr ex;
	struct tree t;
	uint8_t *b;
	size_t len, n;
	bool good;

	xdr_enc_init(&e, j->buf, j->cap);
	j->results[0] = xdr_enc_node_ptr(&e, &head);
	len = xdr_enc_len(&e);
	j->results[1] = len == 4 + (size_t)BIG * 16;
	xdr_arena_init(&a, j->arena, j->arena_cap);
	xdr_dec_init(&d, j->buf, len, &a);
	j->results[2] = xdr_dec_node_ptr(&d, &out) && !xdr_dec_left(&d);
	good = true;
	for (n = 0; out; out = out->next, n++)
		good &= out->id == n && out->name.len == 3;
	j->results[3] = good && n == BIG;
	j->results[4] = a.used <= (size_t)BIG * ((sizeof(struct node) + 7) & ~(size_t)7);

	xdr_enc_init(&e, j->buf, j->cap);
	j->results[5] = xdr_enc_link_ptr(&e, &lhead);
	xdr_arena_init(&a, j->arena, j->arena_cap);
	xdr_dec_init(&d, j->buf, xdr_enc_len(&e), &a);
	good = xdr_dec_link_ptr(&d, &lout) && !xdr_dec_left(&d);
	for (n = 0; good && lout; lout = lout->next, n++)
		good &= lout->v == (int32_t)n;
	j->results[6] = good && n == BIG;

	/* Hostile nesting is refused at the depth bound, not by a crash. */
	b = chain_bytes(100000, &len);
	xdr_arena_init(&a, j->arena, j->arena_cap);
	xdr_dec_init(&d, b, len, &a);
	j->results[7] = !xdr_dec_tree(&d, &t);
	free(b);
	b = expr_bytes(100000, &len);
	xdr_arena_init(&a, j->arena, j->arena_cap);
	xdr_dec_init(&d, b, len, &a);
	j->results[8] = !xdr_dec_expr(&d, &ex);
	free(b);
	b = chain_bytes(XDR_MAX_DEPTH + 1, &len);
	xdr_arena_init(&a, j->arena, j->arena_cap);
	xdr_dec_init(&d, b, len, &a);
	j->results[9] = xdr_dec_tree(&d, &t) && !xdr_dec_left(&d);
	free(b);
	return NULL;
}

static void test_big_lists(void)
{
	struct small_stack_job j = { 0 };
	pthread_attr_t attr;
	pthread_t th;
	size_t i;
	int rc;

	j.nodes = calloc(BIG, sizeof(*j.nodes));
	j.links = calloc(BIG, sizeof(*j.links));
	j.cap = 4 + (size_t)BIG * 16;
	j.buf = malloc(j.cap);
	j.arena_cap = (size_t)BIG * 64;
	j.arena = malloc(j.arena_cap);
	if (!j.nodes || !j.links || !j.buf || !j.arena)
		exit(99);
	for (i = 0; i < BIG; i++) {
		j.nodes[i].id = (uint32_t)i;
		j.nodes[i].name = BYTES("abc");
		j.nodes[i].next = i + 1 < BIG ? &j.nodes[i + 1] : NULL;
		j.links[i].v = (int32_t)i;
		j.links[i].next = i + 1 < BIG ? &j.links[i + 1] : NULL;
	}
	pthread_attr_init(&attr);
	rc = pthread_attr_setstacksize(&attr, 64 * 1024);
	ok(rc == 0, "thread stack set to 64 KiB");
	rc = pthread_create(&th, &attr, small_stack, &j);
	ok(rc == 0 && pthread_join(th, NULL) == 0, "small-stack thread ran");
	ok(j.results[0] && j.results[1], "64 KiB stack: encode a %d-node list", BIG);
	ok(j.results[2] && j.results[3], "64 KiB stack: decode it, all %d in order", BIG);
	ok(j.results[4], "list decode uses one arena node per node");
	ok(j.results[5] && j.results[6],
	   "64 KiB stack: %d-node list linked through a typedef", BIG);
	ok(j.results[7], "64 KiB stack: tree nested 100000 deep refused");
	ok(j.results[8], "64 KiB stack: expr/binop nested 100000 deep refused");
	ok(j.results[9], "tree nested XDR_MAX_DEPTH + 1 deep decodes");
	pthread_attr_destroy(&attr);
	free(j.nodes);
	free(j.links);
	free(j.buf);
	free(j.arena);
}

static void test_depth_bound(void)
{
	struct tree chain[XDR_MAX_DEPTH + 2];
	struct xdr_arena a;
	struct expr ex;
	struct tree t;
	struct xdr_enc e;
	uint8_t *b;
	size_t len, i;

	b = chain_bytes(XDR_MAX_DEPTH + 1, &len);
	ok(check_prefixes(&g, b, len, dec_tree) == 0,
	   "tree %u deep: decodes, every prefix fails", XDR_MAX_DEPTH + 1);
	free(b);
	b = chain_bytes(XDR_MAX_DEPTH + 2, &len);
	ok(!dec_at(b, len, dec_tree, &t, &a), "tree %u deep: refused",
	   XDR_MAX_DEPTH + 2);
	free(b);
	b = expr_bytes(10, &len);
	ok(check_prefixes(&g, b, len, dec_expr) == 0,
	   "expr/binop 10 deep: decodes, every prefix fails");
	ok(dec_at(b, len, dec_expr, &ex, &a) && ex.op == 1 &&
	   ex.u.bin->rhs.u.lit == 9, "expr/binop 10 deep: values");
	free(b);

	for (i = 0; i < XDR_MAX_DEPTH + 2; i++)
		chain[i] = (struct tree){ (int32_t)i, NULL, NULL };
	for (i = 0; i + 1 < XDR_MAX_DEPTH + 1; i++)
		chain[i].left = &chain[i + 1];
	xdr_enc_init(&e, encbuf, sizeof(encbuf));
	ok(xdr_enc_tree(&e, &chain[0]), "enc: tree %u deep", XDR_MAX_DEPTH + 1);
	chain[XDR_MAX_DEPTH].left = &chain[XDR_MAX_DEPTH + 1];
	xdr_enc_init(&e, encbuf, sizeof(encbuf));
	ok(!xdr_enc_tree(&e, &chain[0]), "enc: tree %u deep refused",
	   XDR_MAX_DEPTH + 2);
}

/* xdr_name_E: every member by its name, anything else NULL. */
static void test_enum_names(void)
{
	ok(!strcmp(xdr_name_color(RED), "RED") && !strcmp(xdr_name_color(BLUE), "BLUE") &&
	   !strcmp(xdr_name_color(NEGATIVE), "NEGATIVE"), "names: members by name");
	ok(!xdr_name_color(2) && !xdr_name_color(-1), "names: NULL for non-members");
}

int main(void)
{
	guard_init(&g, sizeof(encbuf));
	test_enum_names();
	test_everything();
	test_wire_cases();
	test_wire_encode();
	test_allocation();
	test_depth_bound();
	test_big_lists();
	guard_free(&g);
	return tap_done();
}
