// SPDX-License-Identifier: GPL-2.0
/*
 * mlx5fix: the fake mlx5 driver's tree (mlx5fix.h) for the tests of rocecc
 * and roceccd, which read it with --hw-root DIR.
 *
 *   mlx5fix build DIR [NETDEV]               mlx5_0 port 1, netdev eth0 (or
 *                                            NETDEV),
 *                                            function 0000:3b:00.0, PFC on
 *                                            priority 3, storm counters;
 *                                            and rxe0 (not mlx5)
 *   mlx5fix stat DIR IBDEV PORT NAME VALUE   set a hw_counters file
 *   mlx5fix eth DIR NETDEV NAME VALUE        set an ethtool statistic
 *
 * Writes through these trees are plain file writes, without the driver's
 * semantics (test_hwcc.c has those). Exit 0, or 1 with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5fix.h"

static int fail(const char *what, int e)
{
	fprintf(stderr, "mlx5fix: %s: %s\n", what, strerror(-e));
	return 1;
}

int main(int argc, char **argv)
{
	struct mlx5fix_dev dev = {
		.ibdev = "mlx5_0", .netdev = "eth0", .fn = "0000:3b:00.0",
		.pfc_en = 1U << 3, .storm = true,
	};
	struct mlx5fix fx;
	int e;

	if (argc < 3) {
		fprintf(stderr, "usage: mlx5fix build|stat|eth DIR ...\n");
		return 2;
	}
	e = mlx5fix_init_at(&fx, argv[2]);
	if (e)
		return fail(argv[2], e);
	if (!strcmp(argv[1], "build") && argc <= 4) {
		if (argc == 4)
			dev.netdev = argv[3];
		e = mlx5fix_add(&fx, &dev);
		if (!e)
			e = mlx5fix_add_other(&fx, "rxe0", NULL);
		return e ? fail("build", e) : 0;
	}
	if (!strcmp(argv[1], "stat") && argc == 7) {
		e = mlx5fix_set_stat(&fx, argv[3], (unsigned int)atoi(argv[4]),
				     argv[5], strtoull(argv[6], NULL, 0));
		return e ? fail(argv[5], e) : 0;
	}
	if (!strcmp(argv[1], "eth") && argc == 6) {
		e = mlx5fix_set_eth(&fx, argv[3], argv[4],
				    strtoull(argv[5], NULL, 0));
		return e ? fail(argv[4], e) : 0;
	}
	fprintf(stderr, "mlx5fix: bad command line\n");
	return 2;
}
