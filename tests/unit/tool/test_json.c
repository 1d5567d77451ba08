/* SPDX-License-Identifier: MIT */
/* The JSON writer: exact escaping of quotes, backslashes, control
 * characters and invalid UTF-8; structure (commas, nesting) and misuse
 * detection. With --emit it prints a document for test_json.sh, which
 * parses it with Python's json module. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tap.h"

static char *escaped(const char *s)
{
	static char out[1024];
	FILE *f = fmemopen(out, sizeof(out), "w");

	json_escape(f, s);
	fclose(f);
	return out;
}

/* The document test_json.sh checks, field by field. */
static bool emit(FILE *f)
{
	struct json_w w;

	json_init(&w, f);
	json_obj(&w, NULL);
	json_str(&w, "plain", "hello");
	json_str(&w, "quote\"key", "a \"quoted\" \\ back\\slash");
	json_str(&w, "controls", "tab\there\nnl\r\x01\x1f\x7f end");
	json_str(&w, "utf8", "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80");
	json_str(&w, "invalid", "a\xff" "b\xc3" "c\xed\xa0\x80" "d\xc0\xaf" "e");
	json_str(&w, "null", NULL);
	json_u64(&w, "u64max", UINT64_MAX);
	json_i64(&w, "neg", -42);
	json_dbl(&w, "pi", 3.25);
	json_dbl(&w, "tiny", 1e-12);
	json_dbl(&w, "inf", 1.0 / 0.0);
	json_bool(&w, "yes", true);
	json_arr(&w, "list");
	for (int i = 0; i < 3; i++) {
		json_obj(&w, NULL);
		json_u64(&w, "i", (uint64_t)i);
		json_end(&w);
	}
	json_end(&w);
	json_arr(&w, "empty_list");
	json_end(&w);
	json_obj(&w, "empty_obj");
	json_end(&w);
	json_end(&w);
	return json_finish(&w);
}

int main(int argc, char **argv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	struct json_w w;

	if (argc > 1 && !strcmp(argv[1], "--emit"))
		return emit(stdout) ? 0 : 1;

	ok(!strcmp(escaped("abc"), "\"abc\""), "plain string quoted");
	ok(!strcmp(escaped("a\"b"), "\"a\\\"b\""), "quote escaped");
	ok(!strcmp(escaped("a\\b"), "\"a\\\\b\""), "backslash escaped");
	ok(!strcmp(escaped("\n\t\r\b\f"), "\"\\n\\t\\r\\b\\f\""), "short escapes");
	ok(!strcmp(escaped("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\""),
	   "other controls as \\u00XX: %s", escaped("\x01\x1f\x7f"));
	ok(!strcmp(escaped("\xc3\xa9"), "\"\xc3\xa9\""), "valid 2-byte UTF-8 kept");
	ok(!strcmp(escaped("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\""), "valid 4-byte UTF-8 kept");
	ok(!strcmp(escaped("a\xff"), "\"a\\ufffd\""), "0xff -> U+FFFD");
	ok(!strcmp(escaped("\xc3"), "\"\\ufffd\""), "truncated sequence -> U+FFFD");
	ok(!strcmp(escaped("\xc0\xaf"), "\"\\ufffd\\ufffd\""), "overlong '/' -> two U+FFFD");
	ok(!strcmp(escaped("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\""), "surrogate -> U+FFFD");
	ok(!strcmp(escaped("/"), "\"/\""), "slash not escaped");

	f = open_memstream(&buf, &len);
	ok(emit(f), "document written without misuse");
	fclose(f);
	ok(buf && len > 0 && buf[0] == '{' && !strcmp(buf + len - 2, "}\n"), "one object, newline");
	ok(strstr(buf, "\"u64max\": 18446744073709551615") != NULL, "u64 max printed exactly");
	ok(strstr(buf, "\"inf\": null") != NULL, "infinity written as null");
	ok(strstr(buf, "\"empty_list\": []") != NULL && strstr(buf, "\"empty_obj\": {}") != NULL,
	   "empty containers");
	ok(strstr(buf, "\"i\": 0\n    },\n    {") != NULL, "array elements separated by commas");
	free(buf);

	f = fopen("/dev/null", "w");
	json_init(&w, f);
	json_obj(&w, NULL);
	json_end(&w);
	json_end(&w);
	ok(!json_finish(&w), "one end too many is reported");
	json_init(&w, f);
	json_obj(&w, NULL);
	ok(!json_finish(&w), "an unclosed object is reported");
	json_init(&w, f);
	json_u64(&w, NULL, 1);
	json_u64(&w, NULL, 2);
	ok(!json_finish(&w), "two top-level values are reported");
	json_init(&w, f);
	for (int i = 0; i < 40; i++)
		json_arr(&w, NULL);
	ok(!json_finish(&w), "nesting past the limit is reported");
	fclose(f);
	return tap_done();
}
