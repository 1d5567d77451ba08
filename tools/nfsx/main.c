/* SPDX-License-Identifier: MIT */
/* nfsx: an NFS client on the command line (libnfsx), and nfsx bench. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cmd_fs.h"
#include "stats.h"

static const char usage[] =
"usage: nfsx COMMAND [ARGS]\n"
"\n"
"  ls [-l] [-a] URL...     list a directory (a file: that file); -l long, -a dot files\n"
"  stat URL...             attributes and file handle\n"
"  cat URL...              write files to standard output\n"
"  get URL [LOCAL]         copy a file here (LOCAL: file or directory, default .)\n"
"  put LOCAL URL           copy a local file (- for stdin) to URL (a directory: same name)\n"
"  cp SRC DST              copy a file nfs->local, local->nfs or nfs->nfs\n"
"  rm [-r] URL...          remove files; -r: directories and what they hold\n"
"  mkdir [-p] URL...       make a directory; -p: with its parents, no error if it exists\n"
"  mv URL URL              rename (into the second when it is a directory), one server\n"
"  ln URL URL              a hard link: the second names the first's file too\n"
"  chmod MODE URL...       set the permission bits (octal MODE)\n"
"  bench [OPTION=V]... URL fio-like load generator and iozone -N-like latency mode\n"
"                          (nfsx bench --help)\n"
"  stats [OPTION]...       a running nfsxd's statistics, from its control socket\n"
"                          (nfsx stats --help)\n"
"  help, --help            this text;  --version  the version\n"
"\n"
"URL: nfs://HOST[:PORT]/EXPORT[/PATH][?OPT=V&...], NFS over TCP. Without PORT,\n"
"rpcbind on HOST is asked. Options: uid, gid (AUTH_SYS identity; default the\n"
"caller's), version (3, the default; 4.1 or 4.2: that NFSv4 minor version;\n"
"4: the highest both sides speak, 4.2 else 4.1; NFSv4.0 is not spoken),\n"
"mountport, nconnect, timeo (ms), retrans.\n"
"The export is the longest prefix of the path that the server exports (NFSv3);\n"
"over NFSv4 the whole path is walked from the server's pseudo root.\n"
"\n"
"Exit status: 0 success, 1 an operation failed (the message names the NFS\n"
"status, e.g. NFS3ERR_NOENT), 2 usage error.\n";

static const struct {
	const char *name;
	int (*fn)(int, char **);
} cmds[] = {
	{ "ls", cmd_ls }, { "stat", cmd_stat }, { "cat", cmd_cat }, { "get", cmd_get },
	{ "put", cmd_put }, { "cp", cmd_cp }, { "rm", cmd_rm }, { "mkdir", cmd_mkdir },
	{ "mv", cmd_mv }, { "ln", cmd_ln }, { "chmod", cmd_chmod },
	{ "bench", NULL }, { "stats", NULL },
};

int main(int argc, char **argv)
{
	/* a closed pipe (nfsx cat | head) ends the write with EPIPE, not a signal */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("nfsx %s\n", NFSX_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "bench"))
		return cmd_bench(argc - 2, argv + 2);
	if (!strcmp(argv[1], "stats"))
		return cmd_stats(argc - 1, argv + 1);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (cmds[i].fn && !strcmp(argv[1], cmds[i].name)) {
			if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
				fputs(usage, stdout);
				return 0;
			}
			return cmds[i].fn(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "nfsx: unknown command '%s' (nfsx --help lists them)\n", argv[1]);
	return 2;
}
