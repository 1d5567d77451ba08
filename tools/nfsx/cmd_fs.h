/* SPDX-License-Identifier: MIT */
#ifndef NFSX_TOOL_CMD_FS_H
#define NFSX_TOOL_CMD_FS_H

/* Each takes the subcommand's arguments (argv[0] is its name) and
 * returns the exit status: 0, 1 (an operation failed), 2 (usage). */
int cmd_ls(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_cat(int argc, char **argv);
int cmd_get(int argc, char **argv);
int cmd_put(int argc, char **argv);
int cmd_cp(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_mkdir(int argc, char **argv);
/* cmd_ns.c */
int cmd_mv(int argc, char **argv);
int cmd_ln(int argc, char **argv);
int cmd_chmod(int argc, char **argv);

#endif
