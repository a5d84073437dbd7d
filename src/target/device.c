/* SPDX-License-Identifier: MIT */
/*
 * device — the facts of the device under a path, as the kernel tells them.
 *
 * Device facts come from sysfs: /sys/dev/block/MAJ:MIN resolves to the block device; a
 * partition's parent is the disk; the controller is the nearest driver above the disk that is not
 * a generic disk driver (sd, sr), or the SCSI host's proc_name. The mount that holds a scratch
 * file comes from /proc/self/mountinfo, signatures from libblkid. Everything is read under a root
 * directory, so tests feed fixture trees to the same code.
 */
#include "device.h"

#include <blkid/blkid.h>
#include <ctype.h>
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

#include "util.h"

/* ---- sysfs ---------------------------------------------------------------------- */

/* root + rel ("/sys/…"), without doubling the slash. */
char *iom_sysfs_path(const char *root, const char *rel)
{
	size_t n = strlen(root);

	while (n > 0 && root[n - 1] == '/')
		n--;
	return xasprintf("%.*s%s", (int)n, root, rel);
}

/* The trimmed content of dir/name, or NULL when missing or empty. */
char *iom_sysfs_attr(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name), *data = NULL, *s, *out = NULL;
	size_t len;

	if (iom_read_file(p, &data, &len) == 0) {
		s = iom_trim(data);
		if (*s)
			out = xstrdup(s);
	}
	free(data);
	free(p);
	return out;
}

static bool read_attr_u64(const char *dir, const char *name, uint64_t *v)
{
	char *s = iom_sysfs_attr(dir, name), *end;
	bool ok = false;

	if (s) {
		errno = 0;
		*v = strtoull(s, &end, 10);
		ok = errno == 0 && end != s && *end == '\0';
		free(s);
	}
	return ok;
}

bool iom_sysfs_has(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	bool ok = access(p, F_OK) == 0;

	free(p);
	return ok;
}

/* Basename of the target of dir/name when it is a symlink, else NULL. */
static char *link_base(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name), buf[4096];
	ssize_t n = readlink(p, buf, sizeof(buf) - 1);
	char *slash;

	free(p);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	return xstrdup(slash ? slash + 1 : buf);
}

bool iom_majmin_parse(const char *s, unsigned *maj, unsigned *min)
{
	char tail;

	return s && sscanf(s, "%u:%u%c", maj, min, &tail) == 2;
}

/* ---- /proc/self/mountinfo --------------------------------------------------------------- */

void iom_mounts_release(struct iom_mounts *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->e[i].point);
		free(m->e[i].opts);
		free(m->e[i].fstype);
		free(m->e[i].source);
		free(m->e[i].super);
	}
	free(m->e);
	m->e = NULL;
	m->n = 0;
}

/* One line: ID PARENT MAJ:MIN ROOT POINT OPTS [OPTIONAL…] - FSTYPE SOURCE SUPER. */
static bool mountinfo_line(char *line, struct iom_mount *e)
{
	char *f[32], *save = NULL, *tok;
	size_t n = 0, dash = 0;

	for (tok = strtok_r(line, " \t\n", &save); tok && n < IOM_ARRAY_SIZE(f);
	     tok = strtok_r(NULL, " \t\n", &save))
		f[n++] = tok;
	for (size_t i = 6; i < n; i++)
		if (strcmp(f[i], "-") == 0) {
			dash = i;
			break;
		}
	if (!dash || dash + 1 >= n || !iom_majmin_parse(f[2], &e->maj, &e->min))
		return false;
	iom_unescape_octal(f[4]);
	e->point = xstrdup(f[4]);
	e->opts = xstrdup(f[5]);
	e->fstype = xstrdup(f[dash + 1]);
	e->source = dash + 2 < n ? xstrdup(f[dash + 2]) : xstrdup("none");
	if (dash + 2 < n)
		iom_unescape_octal(e->source);
	e->super = dash + 3 < n ? xstrdup(f[dash + 3]) : xstrdup("");
	return true;
}

int iom_mounts_load(const char *root, struct iom_mounts *m)
{
	char *p = iom_sysfs_path(root, "/proc/self/mountinfo"), *data = NULL, *line, *save = NULL;
	size_t len, cap = 0;
	int r;

	m->e = NULL;
	m->n = 0;
	r = iom_read_file(p, &data, &len);
	free(p);
	if (r)
		return r;
	for (line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct iom_mount e = { 0 };

		if (!mountinfo_line(line, &e))
			continue;
		if (m->n == cap) {
			cap = cap ? cap * 2 : 32;
			m->e = xrealloc(m->e, cap * sizeof(*m->e));
		}
		m->e[m->n++] = e;
	}
	free(data);
	return 0;
}

/* True when mount point mp contains path (component-wise prefix). */
static bool point_contains(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return path[0] == '/';
	return strncmp(mp, path, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/*
 * The mount that holds file: among the mounts whose point contains it, those of device
 * maj:min first, the longest point winning and the later line breaking ties (it is on top).
 */
static const struct iom_mount *mount_of(const struct iom_mounts *m, unsigned maj, unsigned min,
					  const char *file)
{
	const struct iom_mount *by_dev = NULL, *any = NULL;

	for (size_t i = 0; i < m->n; i++) {
		const struct iom_mount *e = &m->e[i];

		if (!point_contains(e->point, file))
			continue;
		if (!any || strlen(e->point) >= strlen(any->point))
			any = e;
		if (e->maj == maj && e->min == min &&
		    (!by_dev || strlen(e->point) >= strlen(by_dev->point)))
			by_dev = e;
	}
	return by_dev ? by_dev : any;
}

/* "rw,relatime" + "rw,errors=remount-ro" → "rw,relatime,errors=remount-ro". */
static char *merge_options(const char *a, const char *b)
{
	char *out = xstrdup(a), *copy = xstrdup(b), *save = NULL, *tok;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *probe = xasprintf(",%s,", out), *want = xasprintf(",%s,", tok);

		if (!strstr(probe, want)) {
			char *n = *out ? xasprintf("%s,%s", out, tok) : xstrdup(tok);

			free(out);
			out = n;
		}
		free(probe);
		free(want);
	}
	free(copy);
	return out;
}

/* ---- device facts ----------------------------------------------------------------------- */

static bool is_generic_disk_driver(const char *d)
{
	static const char *const generic[] = { "sd", "sr", "st", "ses", "mmcblk", "nvme-core" };

	for (size_t i = 0; i < IOM_ARRAY_SIZE(generic); i++)
		if (strcmp(d, generic[i]) == 0)
			return true;
	return false;
}

/* proc_name of SCSI host dir (".../hostN"), from its scsi_host class directory. */
static char *scsi_proc_name(const char *root, const char *dir)
{
	const char *name = iom_path_base(dir);
	unsigned n;
	char tail, *cls, *v;

	if (sscanf(name, "host%u%c", &n, &tail) != 1)
		return NULL;
	cls = xasprintf("%s/scsi_host/%s", dir, name);
	v = iom_sysfs_attr(cls, "proc_name");
	free(cls);
	if (!v) {
		char *rel = xasprintf("/sys/class/scsi_host/%s", name);

		cls = iom_sysfs_path(root, rel);
		v = iom_sysfs_attr(cls, "proc_name");
		free(cls);
		free(rel);
	}
	if (v && strcmp(v, "<NULL>") == 0) {
		free(v);
		v = NULL;
	}
	return v;
}

/*
 * Walks up from the disk's device directory to the controller: the first SCSI host with a
 * proc_name, or the first bound driver that is not a generic disk driver. Also notes the names
 * the controller's interrupts carry (nvmeN → "nvmeNq", virtioN → "virtioN-").
 */
static void find_controller(const char *root, const char *disk, struct iom_device_facts *f)
{
	char *devlink = xasprintf("%s/device", disk), *dir = realpath(devlink, NULL);
	char *top_rel = iom_sysfs_path(root, "/sys/devices"), *top = realpath(top_rel, NULL);
	size_t toplen;

	free(devlink);
	free(top_rel);
	if (!top)
		top = realpath(root, NULL);
	toplen = top ? strlen(top) : 0;
	while (dir && top && strlen(dir) > toplen && strncmp(dir, top, toplen) == 0) {
		const char *name = iom_path_base(dir);
		unsigned n;
		char tail, *parent;

		if (!f->irq_names && sscanf(name, "nvme%u%c", &n, &tail) == 1)
			f->irq_names = xasprintf("nvme%uq", n);
		if (!f->irq_names && sscanf(name, "virtio%u%c", &n, &tail) == 1)
			f->irq_names = xasprintf("virtio%u-", n);
		if (!f->driver) {
			char *d = scsi_proc_name(root, dir);

			if (!d) {
				d = link_base(dir, "driver");
				if (d && is_generic_disk_driver(d)) {
					free(d);
					d = NULL;
				}
			}
			f->driver = d;
		}
		if (f->driver && f->irq_names)
			break;
		parent = iom_path_dir(dir);
		free(dir);
		dir = parent;
	}
	free(dir);
	free(top);
}

/* The driver of a disk without a device link, or when the walk found none: by name. */
static char *driver_by_name(const char *disk)
{
	static const struct {
		const char *prefix, *driver;
	} names[] = {
		{ "nvme", "nvme" }, { "vd", "virtio_blk" }, { "xvd", "xen-blkfront" },
		{ "loop", "loop" }, { "dm-", "device-mapper" }, { "md", "md" },
	};
	const char *name = iom_path_base(disk);
	size_t n;

	for (size_t i = 0; i < IOM_ARRAY_SIZE(names); i++)
		if (strncmp(name, names[i].prefix, strlen(names[i].prefix)) == 0)
			return xstrdup(names[i].driver);
	/* zram0 → zram, nbd3 → nbd */
	n = strlen(name);
	while (n > 0 && isdigit((unsigned char)name[n - 1]))
		n--;
	return n ? xasprintf("%.*s", (int)n, name) : NULL;
}

static void read_queue(const char *disk, struct iom_device_facts *f)
{
	char *q = xasprintf("%s/queue", disk), *s;
	uint64_t v;

	if (read_attr_u64(q, "logical_block_size", &v))
		f->logical_block_size = (uint32_t)v;
	if (read_attr_u64(q, "physical_block_size", &v))
		f->physical_block_size = (uint32_t)v;
	if (read_attr_u64(q, "rotational", &v))
		f->rotational = v != 0;
	if (read_attr_u64(q, "nr_requests", &v))
		f->nr_requests = (uint32_t)v;
	s = iom_sysfs_attr(q, "scheduler");
	if (s) {
		char *lb = strchr(s, '['), *rb = lb ? strchr(lb, ']') : NULL;

		f->scheduler = lb && rb ? xasprintf("%.*s", (int)(rb - lb - 1), lb + 1) : xstrdup(s);
		free(s);
	}
	free(q);
}

/* The sysfs directory of block device maj:min under root (resolved), or NULL. */
char *iom_sysfs_block_dir(const char *root, unsigned maj, unsigned min)
{
	char *rel = xasprintf("/sys/dev/block/%u:%u", maj, min), *p = iom_sysfs_path(root, rel);
	char *dir = realpath(p, NULL);

	free(rel);
	free(p);
	return dir;
}

/* maj:min of a block device named name ("sda1") in root's sysfs. */
static bool dev_by_name(const char *root, const char *name, unsigned *maj, unsigned *min)
{
	char *rel = xasprintf("/sys/class/block/%s", name), *p = iom_sysfs_path(root, rel);
	char *v = iom_sysfs_attr(p, "dev");
	bool ok = iom_majmin_parse(v, maj, min);

	free(v);
	free(rel);
	free(p);
	return ok;
}

int iom_device_facts_read_dev(const char *root, unsigned maj, unsigned min, const char *file,
			      struct iom_device_facts *f)
{
	char *dir, *disk;
	uint64_t v;

	memset(f, 0, sizeof(*f));
	f->rotational = -1;
	if (file) {
		struct iom_mounts m;

		if (iom_mounts_load(root, &m) == 0) {
			const struct iom_mount *e = mount_of(&m, maj, min, file);

			if (e) {
				f->fstype = xstrdup(e->fstype);
				f->mount_point = xstrdup(e->point);
				f->mount_options = merge_options(e->opts, e->super);
				/* btrfs and others show an anonymous 0:N; the source names the disk */
				if (maj == 0 && strncmp(e->source, "/dev/", 5) == 0) {
					char *real = strcmp(root, "/") == 0
							     ? realpath(e->source, NULL)
							     : NULL;

					if (!dev_by_name(root, iom_path_base(e->source), &maj, &min) &&
					    real)
						dev_by_name(root, iom_path_base(real), &maj, &min);
					free(real);
				}
			}
			iom_mounts_release(&m);
		}
	}
	if (maj == 0)
		return 0; /* tmpfs, overlay, proc …: no block device */
	dir = iom_sysfs_block_dir(root, maj, min);
	if (!dir)
		return 0;
	if (iom_sysfs_has(dir, "partition")) {
		f->partition = xasprintf("/dev/%s", iom_path_base(dir));
		if (read_attr_u64(dir, "size", &v))
			f->partition_bytes = v * 512;
		disk = iom_path_dir(dir);
	} else {
		disk = xstrdup(dir);
	}
	f->device = xasprintf("/dev/%s", iom_path_base(disk));
	if (read_attr_u64(disk, "size", &v))
		f->device_bytes = v * 512;
	read_queue(disk, f);

	if (iom_sysfs_has(disk, "loop") || strncmp(iom_path_base(disk), "loop", 4) == 0) {
		char *lo = xasprintf("%s/loop", disk);

		f->driver = xstrdup("loop");
		f->backing_file = iom_sysfs_attr(lo, "backing_file");
		free(lo);
	} else if (iom_sysfs_has(disk, "device")) {
		char *dev = xasprintf("%s/device", disk);

		find_controller(root, disk, f);
		f->model = iom_sysfs_attr(dev, "model");
		f->vendor = iom_sysfs_attr(dev, "vendor");
		free(dev);
	} else if (iom_sysfs_has(disk, "dm")) {
		char *dm = xasprintf("%s/dm", disk);

		f->model = iom_sysfs_attr(dm, "name");
		free(dm);
	} else if (iom_sysfs_has(disk, "md")) {
		char *md = xasprintf("%s/md", disk);

		f->model = iom_sysfs_attr(md, "level");
		free(md);
	}
	if (!f->driver)
		f->driver = driver_by_name(disk);
	if (!f->irq_names && f->driver && strcmp(f->driver, "loop") != 0 &&
	    strcmp(f->driver, "device-mapper") != 0 && strcmp(f->driver, "md") != 0 &&
	    iom_sysfs_has(disk, "device"))
		f->irq_names = xstrdup(f->driver);
	free(disk);
	free(dir);
	return 0;
}

int iom_device_facts_read(const char *root, const char *path, struct iom_device_facts *f)
{
	struct stat st;
	char *real;
	int r;

	memset(f, 0, sizeof(*f));
	f->rotational = -1;
	if (stat(path, &st) != 0)
		return -errno;
	if (S_ISBLK(st.st_mode))
		return iom_device_facts_read_dev(root, major(st.st_rdev), minor(st.st_rdev), NULL,
						 f);
	real = realpath(path, NULL);
	if (!real)
		return -errno;
	r = iom_device_facts_read_dev(root, major(st.st_dev), minor(st.st_dev), real, f);
	free(real);
	return r;
}

void iom_device_facts_release(struct iom_device_facts *f)
{
	if (!f)
		return;
	free(f->device);
	free(f->partition);
	free(f->driver);
	free(f->model);
	free(f->vendor);
	free(f->scheduler);
	free(f->fstype);
	free(f->mount_point);
	free(f->mount_options);
	free(f->backing_file);
	free(f->irq_names);
	memset(f, 0, sizeof(*f));
	f->rotational = -1;
}

/* ---- signatures (libblkid) -------------------------------------------------------------- */

static char *probe_value(blkid_probe pr, const char *name)
{
	const char *v = NULL;

	if (blkid_probe_lookup_value(pr, name, &v, NULL) == 0 && v && *v)
		return xstrdup(v);
	return NULL;
}

/* Probes pr (superblocks and partition tables) into s: 1 found, 0 blank, -errno. */
static int signature_probe(blkid_probe pr, struct iom_signature *s)
{
	int r;

	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
						      BLKID_SUBLKS_UUID | BLKID_SUBLKS_LABEL);
	blkid_probe_enable_partitions(pr, 1);
	/* without the protective MBR (its first sectors zeroed) a GPT is still there when its
	 * backup header at the end is: the kernel and gdisk would restore it from that */
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_FORCE_GPT);
	r = blkid_do_safeprobe(pr);
	if (r == 0) {
		s->type = probe_value(pr, "TYPE");
		s->usage = probe_value(pr, "USAGE");
		s->uuid = probe_value(pr, "UUID");
		s->label = probe_value(pr, "LABEL");
		s->pttype = probe_value(pr, "PTTYPE");
		r = s->type || s->pttype ? 1 : 0;
	} else if (r == -2) {
		s->ambivalent = true;
		r = 1;
	} else if (r == 1) {
		r = 0;
	} else {
		r = -EIO;
	}
	return r;
}

int iom_signature_read(const char *path, struct iom_signature *s)
{
	blkid_probe pr;
	int r;

	memset(s, 0, sizeof(*s));
	errno = 0;
	pr = blkid_new_probe_from_filename(path);
	if (!pr)
		return errno ? -errno : -EIO;
	r = signature_probe(pr, s);
	blkid_free_probe(pr);
	return r;
}

/* As iom_signature_read() on an open descriptor (not O_DIRECT: libblkid reads unaligned). */
int iom_signature_read_fd(int fd, struct iom_signature *s)
{
	blkid_probe pr;
	int r;

	memset(s, 0, sizeof(*s));
	pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, 0) != 0) {
		blkid_free_probe(pr);
		return -EIO;
	}
	r = signature_probe(pr, s);
	blkid_free_probe(pr);
	return r;
}

void iom_signature_release(struct iom_signature *s)
{
	if (!s)
		return;
	free(s->type);
	free(s->usage);
	free(s->uuid);
	free(s->label);
	free(s->pttype);
	memset(s, 0, sizeof(*s));
}


/* The kernel's disk sequence number of the block device open as fd (changes when the name goes
 * to another disk or a loop device is re-attached), or 0 when the kernel has none (< 5.15). */
uint64_t iom_device_diskseq(int fd, dev_t rdev)
{
	uint64_t seq = 0;
	char *dir, *disk;

#ifdef BLKGETDISKSEQ
	if (ioctl(fd, BLKGETDISKSEQ, &seq) == 0 && seq)
		return seq;
#endif
	dir = iom_sysfs_block_dir("/", major(rdev), minor(rdev));
	if (!dir)
		return 0;
	disk = iom_sysfs_has(dir, "partition") ? iom_path_dir(dir) : xstrdup(dir);
	if (!read_attr_u64(disk, "diskseq", &seq))
		seq = 0;
	free(disk);
	free(dir);
	return seq;
}

/* SYSFS/block/NAME/queue/ATTR's first line into buf ("" when it cannot be read). */
static void queue_attr(const char *sysfs, const char *name, const char *attr, char *buf,
		       size_t len)
{
	char path[PATH_MAX];
	ssize_t n = -1;
	int fd;

	buf[0] = '\0';
	if ((size_t)snprintf(path, sizeof(path), "%s/block/%s/queue/%s", sysfs ? sysfs : "/sys",
			     name, attr) >= sizeof(path))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

int iom_disk_counters_read(const char *sysfs, const char *device, struct iom_disk_counters *c)
{
	char path[PATH_MAX], text[512];
	const char *name = device ? strrchr(device, '/') : NULL;
	uint64_t v[17] = { 0 };
	unsigned n = 0;
	ssize_t len;
	char *p, *end;
	int fd;

	memset(c, 0, sizeof(*c));
	name = name ? name + 1 : device;
	if (!name || !*name)
		return -ENOENT;
	if ((size_t)snprintf(path, sizeof(path), "%s/block/%s/stat", sysfs ? sysfs : "/sys",
			     name) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (len < 0)
		return -EIO;
	text[len] = '\0';
	for (p = text; n < 17; p = end) {
		unsigned long long x;

		errno = 0;
		x = strtoull(p, &end, 10);
		if (end == p || errno)
			break;
		v[n++] = x;
	}
	if (n < 11)
		return -EINVAL;
	c->reads = v[0];
	c->writes = v[4];
	c->discards = v[11];
	c->flushes = v[15];
	c->fields = n;
	queue_attr(sysfs, name, "write_cache", c->write_cache, sizeof(c->write_cache));
	queue_attr(sysfs, name, "fua", text, sizeof(text));
	c->fua = *text ? text[0] == '1' : -1;
	return 0;
}
