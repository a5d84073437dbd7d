/* SPDX-License-Identifier: MIT */
/*
 * target_safe — the write checks of block devices: what iom_target_check_writable() refuses, and
 * the same checks again on the descriptor each open for writing gets.
 *
 * Block devices are refused for writing unless every check passes: destructive = true, nothing
 * mounted (the device or a partition, by major:minor and by mount source), no swap, no holders,
 * no signature libblkid recognises, and an O_EXCL open succeeds (the kernel's own "in use").
 * The facts come from the device room (device.h); the decisions are made here.
 */
#include "target_safe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device.h"
#include "util.h"

/* ---- write safety of block devices ------------------------------------------------------ */

struct blockdev {
	unsigned maj, min;
	char *name;   /* "/dev/sda1" */
	char *sysdir; /* resolved sysfs directory, NULL when unknown */
};

static void blockdevs_release(struct blockdev *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(d[i].name);
		free(d[i].sysdir);
	}
	free(d);
}

/* The device itself, then its partitions (a partition itself has none). */
static struct blockdev *blockdevs_of(const char *root, const char *path, dev_t rdev, size_t *n)
{
	struct blockdev *d = xcalloc(1, sizeof(*d));
	DIR *dh;
	struct dirent *de;
	size_t cap = 1;

	d[0].maj = major(rdev);
	d[0].min = minor(rdev);
	d[0].name = xstrdup(path);
	d[0].sysdir = iom_sysfs_block_dir(root, d[0].maj, d[0].min);
	*n = 1;
	if (!d[0].sysdir || iom_sysfs_has(d[0].sysdir, "partition"))
		return d;
	dh = opendir(d[0].sysdir);
	while (dh && (de = readdir(dh))) {
		char *sub, *dev;
		unsigned maj, min;

		if (de->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", d[0].sysdir, de->d_name);
		dev = iom_sysfs_has(sub, "partition") ? iom_sysfs_attr(sub, "dev") : NULL;
		if (iom_majmin_parse(dev, &maj, &min)) {
			if (*n == cap) {
				cap *= 2;
				d = xrealloc(d, cap * sizeof(*d));
			}
			d[*n].maj = maj;
			d[*n].min = min;
			d[*n].name = xasprintf("/dev/%s", de->d_name);
			d[*n].sysdir = sub;
			sub = NULL;
			(*n)++;
		}
		free(dev);
		free(sub);
	}
	if (dh)
		closedir(dh);
	return d;
}

/*
 * One round of write checks on a device: at preparation ("refusing to write to 'P': …") or
 * again at a run's open (now: "'P' is now mounted on …; it was not when the sweep started").
 */
struct wcheck {
	const char *root, *path;
	bool now;
	char *err;
	size_t errlen;
};

/* "it" for the device itself, "its partition '/dev/sda1'" for a partition. */
static char *what(const struct blockdev *d, size_t i)
{
	return i == 0 ? xstrdup("it") : xasprintf("its partition '%s'", d[i].name);
}

/* "refusing to write to 'P': it VERB REST" or, now, "'P' VERB now REST; it was not when …". */
static int refuse(const struct wcheck *c, int code, const struct blockdev *d, size_t i,
		  const char *verb, const char *fmt, const char *arg)
{
	char *rest = xasprintf(fmt, arg);

	if (!c->now) {
		char *who = what(d, i);

		iom_err(c->err, c->errlen, code, "refusing to write to '%s': %s %s %s", c->path, who,
			verb, rest);
		free(who);
	} else if (i == 0) {
		iom_err(c->err, c->errlen, code, "'%s' %s now %s; it was not when the sweep started",
			c->path, verb, rest);
	} else {
		iom_err(c->err, c->errlen, code,
			"'%s': its partition '%s' %s now %s; it was not when the sweep started",
			c->path, d[i].name, verb, rest);
	}
	free(rest);
	return -code;
}

static bool block_matches(const char *source, const struct blockdev *d, size_t n, size_t *which)
{
	struct stat st;

	if (strncmp(source, "/dev/", 5) != 0 || stat(source, &st) != 0 || !S_ISBLK(st.st_mode))
		return false;
	for (size_t i = 0; i < n; i++)
		if (major(st.st_rdev) == d[i].maj && minor(st.st_rdev) == d[i].min) {
			*which = i;
			return true;
		}
	return false;
}

static int check_mounts(const struct wcheck *c, const struct blockdev *d, size_t n)
{
	struct iom_mounts m;
	int r = 0;

	if (iom_mounts_load(c->root, &m) != 0)
		return 0;
	for (size_t k = 0; k < m.n && !r; k++) {
		size_t which = n;

		for (size_t i = 0; i < n; i++)
			if (m.e[k].maj == d[i].maj && m.e[k].min == d[i].min)
				which = i;
		if (which == n && !block_matches(m.e[k].source, d, n, &which))
			continue;
		r = refuse(c, EBUSY, d, which, "is", "mounted on '%s'", m.e[k].point);
	}
	iom_mounts_release(&m);
	return r;
}

static int check_swaps(const struct wcheck *c, const struct blockdev *d, size_t n)
{
	char *p = iom_sysfs_path(c->root, "/proc/swaps"), *data = NULL, *line, *save = NULL;
	size_t len;
	int r = 0;

	if (iom_read_file(p, &data, &len) != 0) {
		free(p);
		return 0;
	}
	free(p);
	for (line = strtok_r(data, "\n", &save); line && !r; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strpbrk(line, " \t");
		size_t which;

		if (strncmp(line, "Filename", 8) == 0 || !sp)
			continue;
		*sp = '\0';
		iom_unescape_octal(line);
		if (block_matches(line, d, n, &which))
			r = refuse(c, EBUSY, d, which, "is", "active swap%s", "");
	}
	free(data);
	return r;
}

static int check_holders(const struct wcheck *c, const struct blockdev *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *h = d[i].sysdir ? xasprintf("%s/holders", d[i].sysdir) : NULL;
		DIR *dh = h ? opendir(h) : NULL;
		struct dirent *de;
		char *holder = NULL;

		while (dh && !holder && (de = readdir(dh)))
			if (de->d_name[0] != '.')
				holder = xstrdup(de->d_name);
		if (dh)
			closedir(dh);
		if (holder) {
			char *hdir = xasprintf("%s/%s", h, holder), *dm = xasprintf("%s/dm", hdir);
			char *dmname = iom_sysfs_attr(dm, "name"), *desc;
			int r;

			if (dmname)
				desc = xasprintf("'%s' (device-mapper '%s': LVM, crypt or multipath)",
						 holder, dmname);
			else if (strncmp(holder, "md", 2) == 0)
				desc = xasprintf("'%s' (md RAID)", holder);
			else
				desc = xasprintf("'%s'", holder);
			r = refuse(c, EBUSY, d, i, "is", "in use by %s", desc);
			free(desc);
			free(dmname);
			free(dm);
			free(hdir);
			free(holder);
			free(h);
			return r;
		}
		free(h);
	}
	return 0;
}

/* "an ext4 filesystem", "a swap signature", "a dos partition table", "more than one signature". */
static char *signature_text(const struct iom_signature *s, bool word_signature)
{
	const char *kind;

	if (s->ambivalent)
		return xstrdup("more than one signature");
	if (s->pttype)
		return xasprintf("a %s partition table", s->pttype);
	kind = !s->usage ? "" :
	       strcmp(s->usage, "filesystem") == 0 ? " filesystem" :
	       strcmp(s->usage, "raid") == 0 ? " RAID or LVM member" :
	       strcmp(s->usage, "crypto") == 0 ? " encrypted volume" : "";
	return xasprintf("%s %s%s%s", s->type && strchr("aeiouAEIOU", s->type[0]) ? "an" : "a",
			 s->type ? s->type : "unknown", kind,
			 word_signature || !*kind ? " signature" : "");
}

/*
 * The signature of the device (fd >= 0: probed on that descriptor; else by path), or of its
 * partition part ("its partition 'X'", NULL for the device itself).
 */
static int check_signature(const struct wcheck *c, int fd, const char *part,
			   const char *own_uuid)
{
	const char *path = part ? part : c->path;
	struct iom_signature s;
	char *found;
	int r = fd >= 0 ? iom_signature_read_fd(fd, &s) : iom_signature_read(path, &s);

	if (r < 0)
		return iom_err(c->err, c->errlen, -r, "cannot probe '%s' for signatures: %s", path,
			       strerror(-r));
	if (r == 0)
		return 0;
	if (!s.ambivalent && !s.pttype && own_uuid && s.uuid && strcmp(own_uuid, s.uuid) == 0) {
		iom_signature_release(&s);
		return 0; /* a filesystem iomatrix made itself */
	}
	found = signature_text(&s, !c->now);
	if (c->now && part)
		r = iom_err(c->err, c->errlen, EEXIST,
			    "'%s': its partition '%s' now carries %s; the device held none when "
			    "the sweep started",
			    c->path, part, found);
	else if (c->now)
		r = iom_err(c->err, c->errlen, EEXIST,
			    "'%s' now carries %s; it held none when the sweep started", c->path,
			    found);
	else if (part)
		r = iom_err(c->err, c->errlen, EEXIST,
			    "refusing to write to '%s': its partition '%s' carries %s", c->path,
			    part, found);
	else if (s.ambivalent)
		r = iom_err(c->err, c->errlen, EEXIST,
			    "refusing to write to '%s': it carries more than one signature (list "
			    "them with 'wipefs %s'; wipe them with 'wipefs -a %s' if it is expendable)",
			    path, path, path);
	else
		r = iom_err(c->err, c->errlen, EEXIST,
			    "refusing to write to '%s': it carries %s (wipe it with 'wipefs -a %s' "
			    "if it is expendable)",
			    path, found, path);
	free(found);
	iom_signature_release(&s);
	return r;
}

/*
 * Partitions the kernel knows of (sysfs): a device with any is refused, naming the first one
 * and, when it carries a filesystem or another signature, that. The kernel's table outlives a
 * wiped one on disk until it is re-read, and the partitions keep working meanwhile.
 */
static int check_partitions(const struct wcheck *c, const struct blockdev *d, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct stat st;
		int r;

		/* probe the partition where its node is the one sysfs names (never in fixtures) */
		if (strcmp(c->root, "/") == 0 && stat(d[i].name, &st) == 0 && S_ISBLK(st.st_mode) &&
		    major(st.st_rdev) == d[i].maj && minor(st.st_rdev) == d[i].min) {
			r = check_signature(c, -1, d[i].name, NULL);
			if (r)
				return r;
		}
		if (c->now)
			return iom_err(c->err, c->errlen, EEXIST,
				       "'%s' now has partition '%s' in the kernel's partition table; "
				       "it had none when the sweep started",
				       c->path, d[i].name);
		return iom_err(c->err, c->errlen, EEXIST,
			       "refusing to write to '%s': the kernel lists partition '%s' on it "
			       "(remove the partitions with 'wipefs -a %s' and 'blockdev --rereadpt "
			       "%s' if it is expendable)",
			       c->path, d[i].name, c->path, c->path);
	}
	return 0;
}

/* Mounts, swap, holders and partitions of the device rdev (and its partitions). */
static int check_use(const struct wcheck *c, dev_t rdev)
{
	size_t n;
	struct blockdev *d = blockdevs_of(c->root, c->path, rdev, &n);
	int r = check_mounts(c, d, n);

	if (!r)
		r = check_swaps(c, d, n);
	if (!r)
		r = check_holders(c, d, n);
	if (!r)
		r = check_partitions(c, d, n);
	blockdevs_release(d, n);
	return r;
}

int iom_target_check_writable(const char *root, const char *path, const char *own_uuid,
			      char *err, size_t errlen)
{
	struct wcheck c = { .root = root, .path = path, .now = false, .err = err,
			    .errlen = errlen };
	struct stat st;
	int r, fd;

	if (stat(path, &st) != 0)
		return iom_err(err, errlen, errno, "cannot open '%s': %s", path, strerror(errno));
	if (!S_ISBLK(st.st_mode))
		return iom_err(err, errlen, ENOTBLK, "'%s' is not a block device", path);
	r = check_use(&c, st.st_rdev);
	if (!r)
		r = check_signature(&c, -1, NULL, own_uuid);
	if (r)
		return r;
	fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		if (e == EBUSY)
			return iom_err(err, errlen, EBUSY,
				       "refusing to write to '%s': it is in use (the kernel refused "
				       "an exclusive open: a mount, swap, RAID or device-mapper "
				       "holds it)",
				       path);
		return iom_err(err, errlen, e, "cannot open '%s': %s", path, strerror(e));
	}
	close(fd);
	return 0;
}


/* A finding of the write checks (signature, mount, swap, holder, partition): the target
 * changed. Anything else (a probe that could not read) stays what it was. */
static int as_change(int r)
{
	return r == -EEXIST || r == -EBUSY ? -ESTALE : r;
}

int iom_target_recheck_writable(const char *path, dev_t rdev, int fd, char *err,
				size_t errlen)
{
	struct wcheck c = { .root = "/", .path = path, .now = true, .err = err, .errlen = errlen };
	int r = check_signature(&c, fd, NULL, NULL);

	if (!r)
		r = check_use(&c, rdev);
	return as_change(r);
}
