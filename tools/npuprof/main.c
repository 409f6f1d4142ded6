// SPDX-License-Identifier: GPL-2.0-only
/*
 * npuprof - the NPU profiler's command line: git-style subcommands over
 * libnpuprof (lib/npuprof/npuprof.h). This file dispatches them and
 * prints the help; record.c and dump.c are the commands.
 *
 * Single-threaded; each command runs once per process.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "npu_cli.h"
#include "op.h"

static const struct npc_cmd *const cmds[] = {
	&npc_cmd_record,
	&npc_cmd_dump,
	&npc_cmd_export,
	&npc_cmd_summary,
	&npc_cmd_report,
	&npc_cmd_analyze,
	&npc_cmd_memory,
	&npc_cmd_diff,
	&npc_cmd_devices,
	&npc_cmd_top,
	&npc_cmd_op,
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static const char main_help_head[] =
"NAME\n"
"    npuprof - record and inspect NPU profiles\n"
"\n"
"SYNOPSIS\n"
"    npuprof [--version] [--help] COMMAND [ARGS]\n"
"    npuprof help [COMMAND]\n"
"\n"
"DESCRIPTION\n"
"    npuprof captures what an application does on the NPU and on the CPU\n"
"    around it into a trace file, and reads such files back. A trace holds\n"
"    the host spans libnpu records (inferences, their CPU operators, job\n"
"    submission and wait), the raw trace records of the device (every\n"
"    execution and, at level 2, every operator, in device clock ticks),\n"
"    clock samples that map device ticks to host time, the losses and the\n"
"    process's metadata. Documentation/npu/npuprof.rst is the user's\n"
"    guide; Documentation/npu/trace-file.rst gives the file format.\n"
"\n"
"COMMANDS\n";

static const char main_help_tail[] =
"\n"
"    \"npuprof help COMMAND\" and \"npuprof COMMAND --help\" print the\n"
"    manual of COMMAND.\n"
"\n"
"OPTIONS\n"
"    -h, --help\n"
"        Print this help and exit.\n"
"    -v, --version\n"
"        Print the versions of npuprof and of libnpuprof and exit.\n"
"\n"
"EXIT STATUS\n"
"    That of COMMAND (see its manual); 2 for a usage error: an unknown\n"
"    command or option, a missing or bad argument.\n"
"\n"
"ENVIRONMENT\n"
"    NPUPROF_OUTPUT_PATH, NPUPROF_LEVEL, NPUPROF_PAGES, NPUPROF_ALL\n"
"        Read by libnpuprof in a profiled program (see \"npuprof help\n"
"        record\"); npuprof record sets them for its command.\n"
"\n"
"EXAMPLES\n"
"    npuprof record -- npu-classify -m mobilenet-v1.nmdl -n 10 -q\n"
"    npuprof dump | less\n"
"    npuprof help record\n";

static void list_cmds(FILE *f)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		fprintf(f, "    %-10s %s\n", cmds[i]->name, cmds[i]->summary);
	fprintf(f, "    %-10s %s\n", "help", "print the manual of a command");
}

static int main_help(void)
{
	fputs(main_help_head, stdout);
	list_cmds(stdout);
	fputs(main_help_tail, stdout);
	return 0;
}

static const struct npc_cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(cmds[i]->name, name))
			return cmds[i];
	return NULL;
}

static int unknown_cmd(const char *name)
{
	fprintf(stderr, "%s: '%s' is not an npuprof command. Commands:\n",
		NPC_PROG, name);
	list_cmds(stderr);
	fprintf(stderr, "Try '%s --help' for more information.\n", NPC_PROG);
	return 2;
}

static int help_cmd(int argc, char **argv)
{
	const struct npc_cmd *c;

	if (argc < 2)
		return main_help();
	if (argc > 2)
		return npu_cli_usage_error(NPC_PROG, "help: unexpected argument '%s'",
					   argv[2]);
	if (!strcmp(argv[1], "help"))
		return main_help();
	c = find_cmd(argv[1]);
	return c ? npc_help(c) : unknown_cmd(argv[1]);
}

int main(int argc, char **argv)
{
	const struct npc_cmd *c;
	const char *a;

	if (argc < 2) {
		fprintf(stderr, "usage: %s [--version] [--help] COMMAND [ARGS]\n"
			"Commands:\n", NPC_PROG);
		list_cmds(stderr);
		return 2;
	}
	a = argv[1];
	if (!strcmp(a, "-h") || !strcmp(a, "--help"))
		return main_help();
	if (!strcmp(a, "-v") || !strcmp(a, "--version")) {
		/* libnpuprof is linked statically: one version */
		printf("npuprof %d.%d (libnpuprof %d.%d)\n",
		       NPUPROF_VERSION_MAJOR, NPUPROF_VERSION_MINOR,
		       NPUPROF_VERSION_MAJOR, NPUPROF_VERSION_MINOR);
		return 0;
	}
	if (a[0] == '-')
		return npu_cli_usage_error(NPC_PROG, "unknown option '%s'", a);
	if (!strcmp(a, "help"))
		return help_cmd(argc - 1, argv + 1);
	c = find_cmd(a);
	if (!c)
		return unknown_cmd(a);
	return c->run(argc - 1, argv + 1);
}
