/* SPDX-License-Identifier: MIT */
/*
 * loopdev — a loop device for the tests that need a real block device (root only): attached with
 * LOOP_CONFIGURE and LO_FLAGS_AUTOCLEAR, so it detaches by itself when the returned descriptor is
 * closed, even when the test dies on the way.
 */
#ifndef IOM_TEST_LOOPDEV_H
#define IOM_TEST_LOOPDEV_H

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Creates an empty backing file of bytes in /dev/shm named after name; its path goes to path
 * (also on failure, so the caller's teardown can remove it). 0, or -1. */
static inline int test_loop_backing(char *path, size_t len, const char *name, off_t bytes)
{
	int fd, ret = 0;

	snprintf(path, len, "/dev/shm/%s-XXXXXX", name);
	fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, bytes) != 0)
		ret = -1;
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Attaches backing to a free loop device with LO_FLAGS_AUTOCLEAR and flags (LO_FLAGS_PARTSCAN:
 * the kernel reads its partition table), whose path goes to dev. The device's fd, or -1. */
static inline int test_loop_attach_flags(const char *backing, unsigned flags, char *dev,
					 size_t devlen)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	int bfd = open(backing, O_RDWR | O_CLOEXEC);
	int fd = -1;

	for (int tries = 0; ctl >= 0 && bfd >= 0 && tries < 50 && fd < 0; tries++) {
		struct loop_config cfg;
		int n = ioctl(ctl, LOOP_CTL_GET_FREE), lfd;

		if (n < 0)
			break;
		snprintf(dev, devlen, "/dev/loop%d", n);
		lfd = open(dev, O_RDWR | O_CLOEXEC);
		if (lfd < 0)
			break;
		memset(&cfg, 0, sizeof(cfg));
		cfg.fd = (unsigned)bfd;
		cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | flags;
		if (ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0) {
			fd = lfd;
		} else {
			close(lfd); /* taken by someone else meanwhile: try the next free one */
			if (errno != EBUSY)
				break;
		}
	}
	if (ctl >= 0)
		close(ctl);
	if (bfd >= 0)
		close(bfd);
	return fd;
}

/* Attaches backing to a free loop device, whose path goes to dev. The device's fd, or -1. */
static inline int test_loop_attach(const char *backing, char *dev, size_t devlen)
{
	return test_loop_attach_flags(backing, 0, dev, devlen);
}

/* A test's fixture that could not have its loop device skips with why (a struct with why_skip;
 * cmocka's print_message and skip). */
#define LOOP_OR_SKIP(s)                                                                           \
	do {                                                                                      \
		if ((s)->why_skip) {                                                              \
			print_message("%s\n", (s)->why_skip);                                     \
			skip();                                                                   \
		}                                                                                 \
	} while (0)

/* Closes the loop device's descriptor (autoclear: it detaches now) and removes its backing file
 * (backing may be empty: none was made). */
static inline void test_loop_release(int fd, const char *backing)
{
	if (fd >= 0)
		close(fd);
	if (backing[0])
		unlink(backing);
}

#endif
