/* SPDX-License-Identifier: MIT */
/*
 * fsprep — mkfs, mount and unmount for the filesystem dimension. See fsprep.h.
 *
 * The order of iom_fs_make is the safety argument: the device safety checks first (refusing a
 * mounted, held or foreign-signed device), then mkfs with a UUID of our own making, then a
 * probe that the device carries exactly that UUID. Nothing here decides whether a device may be
 * written at all: the caller has seen destructive = true.
 */
#include "fsprep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "proc.h"
#include "target.h"
#include "units.h"
#include "util.h"

#define DEFAULT_MKFS_TIMEOUT_NS (30ull * 60 * 1000000000ull)
#define DEFAULT_BUSY_WAIT_NS (5ull * 1000000000ull)
#define RUN_DIR "/run/iomatrix"
#define RUN_MNT_PREFIX RUN_DIR "/mnt-"
#define TMP_MNT_PREFIX "/tmp/iomatrix-mnt-"
#define SBIN_PATH "/usr/local/sbin:/usr/sbin:/sbin"

struct fs_kind {
	const char *name;
	const char *package; /* Debian package of mkfs.<name> */
};

/* The package of each of keys.h's iom_fs_types (the names a matrix may give). */
static const struct fs_kind kinds[] = {
	{ "ext4", "e2fsprogs" },
	{ "xfs", "xfsprogs" },
	{ "btrfs", "btrfs-progs" },
	{ "raw", NULL },
};

static const struct fs_kind *kind_of(const char *fstype)
{
	for (size_t i = 0; fstype && i < IOM_ARRAY_SIZE(kinds); i++)
		if (strcmp(kinds[i].name, fstype) == 0)
			return &kinds[i];
	return NULL;
}

const char *iom_fs_package(const char *fstype)
{
	const struct fs_kind *k = kind_of(fstype);

	return k ? k->package : NULL;
}

int iom_fs_tool_find(const char *fstype, const char *tool, const char *search_path, char **path,
		     char *err, size_t errlen)
{
	char *name = fstype ? xasprintf("mkfs.%s", fstype) : xstrdup(tool ? tool : "");
	const char *pkg = fstype ? iom_fs_package(fstype)
				 : (tool && strcmp(tool, "wipefs") == 0 ? "util-linux" : NULL);
	char *list, *save = NULL, *dir;
	int ret;

	*path = NULL;
	if (search_path) {
		list = xstrdup(search_path);
	} else {
		const char *env = getenv("PATH");

		list = env && *env ? xasprintf("%s:%s", env, SBIN_PATH) : xstrdup(SBIN_PATH);
	}
	for (dir = strtok_r(list, ":", &save); dir && *name; dir = strtok_r(NULL, ":", &save)) {
		char *cand = xasprintf("%s/%s", dir, name);
		struct stat st;

		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
			*path = cand;
			break;
		}
		free(cand);
	}
	free(list);
	if (*path) {
		free(name);
		return 0;
	}
	if (pkg)
		ret = iom_err(err, errlen, ENOENT, "%s is not installed (install the package %s)",
			      name, pkg);
	else
		ret = iom_err(err, errlen, ENOENT, "%s is not installed", name);
	free(name);
	return ret;
}

/* ---- uuids and labels ------------------------------------------------------------------- */

static bool uuid_valid(const char *u)
{
	if (strlen(u) != IOM_FS_UUID_LEN)
		return false;
	for (int i = 0; i < IOM_FS_UUID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? u[i] != '-' : !strchr("0123456789abcdef", u[i]))
			return false;
	}
	return true;
}

int iom_fs_new_uuid(char out[IOM_FS_UUID_LEN + 1])
{
	char *text = NULL;
	unsigned char b[16];
	size_t len;

	if (iom_read_file("/proc/sys/kernel/random/uuid", &text, &len) == 0) {
		if (len >= IOM_FS_UUID_LEN) {
			memcpy(out, text, IOM_FS_UUID_LEN);
			out[IOM_FS_UUID_LEN] = '\0';
		}
		free(text);
		if (uuid_valid(out))
			return 0;
	}
	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return -EIO;
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(out, IOM_FS_UUID_LEN + 1,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
		 b[15]);
	return 0;
}

static void label_of(const char *uuid, char *label, size_t len)
{
	snprintf(label, len, IOM_FS_LABEL_PREFIX "%.8s", uuid);
}

/* The one of own (NULL-terminated, may be NULL) that device carries with the label made from
 * it: our own filesystem; NULL when none. */
static const char *recognise(const char *device, const char *const *own)
{
	struct iom_signature s;
	const char *ret = NULL;

	if (!own || !own[0])
		return NULL;
	if (iom_signature_read(device, &s) != 1)
		return NULL;
	for (size_t i = 0; own[i] && !ret && s.uuid && s.label; i++) {
		char label[16];

		label_of(own[i], label, sizeof(label));
		if (*own[i] && strcasecmp(s.uuid, own[i]) == 0 && strcmp(s.label, label) == 0)
			ret = own[i];
	}
	iom_signature_release(&s);
	return ret;
}

/* ---- mkfs ------------------------------------------------------------------------------- */

/* Appends the white-space separated words of opts to argv (of *n entries, room for all). */
static int split_options(const char *opts, const char ***argv, size_t *n, char **storage,
			 char *err, size_t errlen)
{
	char *save = NULL, *w;

	*storage = NULL;
	if (!opts || !*opts)
		return 0;
	if (strpbrk(opts, "'\"\\"))
		return iom_err(err, errlen, EINVAL,
			       "mkfs options '%s' contain quotes or backslashes: they are split at "
			       "white space only, without a shell",
			       opts);
	*storage = xstrdup(opts);
	for (w = strtok_r(*storage, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		*argv = xrealloc(*argv, (*n + 2) * sizeof(**argv));
		(*argv)[(*n)++] = w;
	}
	return 0;
}

static int run_tool(const char *what, const char *const *argv, const struct iom_fs_opts *o,
		    char *err, size_t errlen)
{
	struct iom_proc_opts po = {
		.log_path = o->log_path,
		.log_dir = o->log_dir,
		.timeout_ns = o->timeout_ns ? o->timeout_ns : DEFAULT_MKFS_TIMEOUT_NS,
		.stop = o->stop,
	};
	struct iom_proc_result r;
	int ret;

	ret = iom_proc_run(what, argv, &po, &r, err, errlen);
	iom_proc_result_release(&r);
	return ret;
}

static int wipe(const char *device, const struct iom_fs_opts *o, char *err, size_t errlen)
{
	struct iom_signature s;
	char *tool, *what;
	const char *argv[5];
	int ret;

	ret = iom_signature_read(device, &s);
	if (ret < 0)
		return iom_err(err, errlen, -ret, "cannot probe '%s': %s", device, strerror(-ret));
	iom_signature_release(&s);
	if (ret == 0)
		return 0; /* blank already */
	ret = iom_fs_tool_find(NULL, "wipefs", o->search_path, &tool, err, errlen);
	if (ret < 0)
		return ret;
	argv[0] = tool;
	argv[1] = "-a";
	argv[2] = "-q";
	argv[3] = device;
	argv[4] = NULL;
	what = xasprintf("wipefs on '%s'", device);
	ret = run_tool(what, argv, o, err, errlen);
	free(what);
	free(tool);
	if (ret < 0)
		return ret;
	ret = iom_signature_read(device, &s);
	if (ret == 1) {
		ret = iom_err(err, errlen, EIO, "wipefs -a left a %s signature on '%s'",
			      s.type ? s.type : "partition table", device);
		iom_signature_release(&s);
		return ret;
	}
	return ret < 0 ? iom_err(err, errlen, -ret, "cannot probe '%s': %s", device,
				 strerror(-ret))
		       : 0;
}

/* Checks that device now carries a filesystem of fstype with uuid. */
static int verify_made(const char *device, const char *fstype, const char *uuid, char *err,
		       size_t errlen)
{
	struct iom_signature s;
	int ret = iom_signature_read(device, &s);

	if (ret < 0)
		return iom_err(err, errlen, -ret, "cannot probe '%s' after mkfs.%s: %s", device,
			       fstype, strerror(-ret));
	if (ret == 0)
		return iom_err(err, errlen, EIO,
			       "mkfs.%s reported success but '%s' carries no filesystem", fstype,
			       device);
	if (!s.type || strcmp(s.type, fstype) != 0 || !s.uuid || strcasecmp(s.uuid, uuid) != 0)
		ret = iom_err(err, errlen, EIO,
			      "mkfs.%s reported success but '%s' carries %s with UUID %s, not "
			      "%s with UUID %s",
			      fstype, device, s.type ? s.type : "an unknown signature",
			      s.uuid ? s.uuid : "(none)", fstype, uuid);
	else
		ret = 0;
	iom_signature_release(&s);
	return ret;
}

int iom_fs_make(const char *device, const char *fstype, const struct iom_fs_opts *o,
		struct iom_fs_made *made, char *err, size_t errlen)
{
	static const struct iom_fs_opts none;
	const char **argv = NULL;
	char *tool = NULL, *storage = NULL, *what = NULL, *uuid_opt = NULL;
	size_t n = 0;
	int ret;

	memset(made, 0, sizeof(*made));
	if (!o)
		o = &none;
	if ((ret = iom_fs_check_type(fstype, err, errlen)) < 0)
		return ret;
	ret = iom_target_check_writable(o->root ? o->root : "/", device,
					recognise(device, o->own_uuids), err, errlen);
	if (ret < 0)
		return ret;
	if (strcmp(fstype, "raw") == 0) {
		ret = wipe(device, o, err, errlen);
		if (ret == 0)
			snprintf(made->fstype, sizeof(made->fstype), "raw");
		return ret;
	}
	if (o->uuid && !uuid_valid(o->uuid))
		return iom_err(err, errlen, EINVAL, "'%s' is not a UUID in lower case", o->uuid);
	if ((ret = iom_fs_tool_find(fstype, NULL, o->search_path, &tool, err, errlen)) < 0)
		return ret;
	if (o->uuid) {
		memcpy(made->uuid, o->uuid, IOM_FS_UUID_LEN + 1);
	} else if (iom_fs_new_uuid(made->uuid) < 0) {
		ret = iom_err(err, errlen, EIO, "cannot generate a UUID for a new filesystem");
		goto out;
	}
	label_of(made->uuid, made->label, sizeof(made->label));

	argv = xcalloc(8, sizeof(*argv));
	argv[n++] = tool;
	argv[n++] = strcmp(fstype, "ext4") == 0 ? "-F" : "-f";
	argv[n++] = "-q";
	argv[n++] = "-L";
	argv[n++] = made->label;
	if (strcmp(fstype, "xfs") == 0) {
		uuid_opt = xasprintf("uuid=%s", made->uuid);
		argv[n++] = "-m";
		argv[n++] = uuid_opt;
	} else {
		argv[n++] = "-U";
		argv[n++] = made->uuid;
	}
	ret = split_options(o->mkfs_options, &argv, &n, &storage, err, errlen);
	if (ret < 0)
		goto out;
	argv = xrealloc(argv, (n + 2) * sizeof(*argv));
	argv[n++] = device;
	argv[n] = NULL;

	what = xasprintf("mkfs.%s on '%s'", fstype, device);
	ret = run_tool(what, argv, o, err, errlen);
	if (ret == 0)
		ret = verify_made(device, fstype, made->uuid, err, errlen);
	if (ret == 0)
		snprintf(made->fstype, sizeof(made->fstype), "%s", fstype);
out:
	if (ret < 0)
		memset(made, 0, sizeof(*made));
	free(what);
	free(uuid_opt);
	free(storage);
	free(argv);
	free(tool);
	return ret;
}

/* ---- mount ------------------------------------------------------------------------------ */

static const struct {
	const char *name;
	unsigned long set, clear;
} mount_flags[] = {
	{ "defaults", 0, 0 },
	{ "ro", MS_RDONLY, 0 },		    { "rw", 0, MS_RDONLY },
	{ "noatime", MS_NOATIME, 0 },	    { "atime", 0, MS_NOATIME },
	{ "nodiratime", MS_NODIRATIME, 0 }, { "diratime", 0, MS_NODIRATIME },
	{ "relatime", MS_RELATIME, 0 },	    { "norelatime", 0, MS_RELATIME },
	{ "strictatime", MS_STRICTATIME, 0 }, { "lazytime", MS_LAZYTIME, 0 },
	{ "nolazytime", 0, MS_LAZYTIME },   { "sync", MS_SYNCHRONOUS, 0 },
	{ "async", 0, MS_SYNCHRONOUS },	    { "dirsync", MS_DIRSYNC, 0 },
	{ "noexec", MS_NOEXEC, 0 },	    { "exec", 0, MS_NOEXEC },
	{ "nosuid", MS_NOSUID, 0 },	    { "nodev", MS_NODEV, 0 },
};

/* Splits mount(8) options into flags and the filesystem's data (a new string, maybe ""). */
static char *parse_mount_options(const char *options, unsigned long *flags)
{
	char *copy = xstrdup(options ? options : ""), *save = NULL, *w, *data;
	size_t len = 0;

	data = xcalloc(1, strlen(copy) + 1);
	*flags = MS_NOSUID | MS_NODEV;
	for (w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < IOM_ARRAY_SIZE(mount_flags); i++)
			if (strcmp(mount_flags[i].name, w) == 0)
				break;
		if (i < IOM_ARRAY_SIZE(mount_flags)) {
			*flags = (*flags | mount_flags[i].set) & ~mount_flags[i].clear;
			continue;
		}
		if (len)
			data[len++] = ',';
		memcpy(data + len, w, strlen(w));
		len += strlen(w);
		data[len] = '\0';
	}
	free(copy);
	return data;
}

/* A new private directory to mount on: under /run/iomatrix when it is ours, else in /tmp. */
static char *private_dir(void)
{
	struct stat st;
	char *d;

	if ((mkdir(RUN_DIR, 0700) == 0 || errno == EEXIST) && lstat(RUN_DIR, &st) == 0 &&
	    S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022)) {
		d = xstrdup(RUN_MNT_PREFIX "XXXXXX");
		if (mkdtemp(d))
			return d;
		free(d);
	}
	d = xstrdup(TMP_MNT_PREFIX "XXXXXX");
	if (mkdtemp(d))
		return d;
	free(d);
	return NULL;
}

int iom_fs_mount(const char *device, const char *fstype, const char *options, char **mount_dir,
		 char *err, size_t errlen)
{
	unsigned long flags;
	char *data, *dir;
	int e;

	*mount_dir = NULL;
	if (!fstype || strcmp(fstype, "raw") == 0 || !kind_of(fstype))
		return iom_err(err, errlen, EINVAL, "cannot mount '%s' as '%s' (%s)", device,
			       fstype ? fstype : "", "ext4, xfs or btrfs");
	dir = private_dir();
	if (!dir) {
		e = errno;
		return iom_err(err, errlen, e, "cannot create a directory to mount '%s' on: %s",
			       device, strerror(e));
	}
	data = parse_mount_options(options, &flags);
	if (mount(device, dir, fstype, flags, *data ? data : NULL) != 0) {
		e = errno;
		rmdir(dir);
		if (e == ENODEV)
			iom_err(err, errlen, e, "cannot mount '%s': the kernel does not support %s",
				device, fstype);
		else if (e == EINVAL)
			iom_err(err, errlen, e,
				"cannot mount '%s' as %s with options '%s': %s (a wrong option or "
				"a damaged filesystem; the kernel log says which)",
				device, fstype, options ? options : "", strerror(e));
		else
			iom_err(err, errlen, e, "cannot mount '%s' as %s on '%s': %s", device,
				fstype, dir, strerror(e));
		free(dir);
		free(data);
		return -e;
	}
	free(data);
	*mount_dir = dir;
	return 0;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
}

int iom_fs_unmount(const char *mount_dir, uint64_t busy_wait_ns, char *msg, size_t msglen)
{
	uint64_t wait = busy_wait_ns ? busy_wait_ns : DEFAULT_BUSY_WAIT_NS;
	uint64_t deadline = iom_now_ns() + wait;
	int ret = 0, e;

	for (;;) {
		if (umount2(mount_dir, UMOUNT_NOFOLLOW) == 0)
			break;
		e = errno;
		if (e == EINTR)
			continue;
		if (e == EBUSY && iom_now_ns() < deadline) {
			sleep_ns(100000000ull);
			continue;
		}
		if (e == EBUSY && umount2(mount_dir, MNT_DETACH | UMOUNT_NOFOLLOW) == 0) {
			char w[32];

			iom_duration_human(wait, w, sizeof(w));
			iom_err(msg, msglen, EBUSY,
				"'%s' was still in use after %s and was detached lazily: its "
				"filesystem stays mounted until its last user lets go",
				mount_dir, w);
			ret = IOM_FS_NOTE;
			break;
		}
		if (e == EINVAL)
			return iom_err(msg, msglen, e, "cannot unmount '%s': it is not a mount point",
				       mount_dir);
		return iom_err(msg, msglen, e, "cannot unmount '%s': %s", mount_dir, strerror(e));
	}
	if (rmdir(mount_dir) != 0) {
		e = errno;
		return iom_err(msg, msglen, e, "unmounted '%s' but cannot remove it: %s", mount_dir,
			       strerror(e));
	}
	return ret;
}

static bool ours(const char *mount_point)
{
	return strncmp(mount_point, RUN_MNT_PREFIX, strlen(RUN_MNT_PREFIX)) == 0 ||
	       strncmp(mount_point, TMP_MNT_PREFIX, strlen(TMP_MNT_PREFIX)) == 0;
}

int iom_fs_unmount_stale(const char *device, const char *own_uuid, char *msg, size_t msglen)
{
	char *text = NULL, *line, *save = NULL, **dirs = NULL;
	size_t ndirs = 0;
	struct stat st;
	int ret;

	const char *own[2] = { own_uuid, NULL };

	if (!own_uuid || !*own_uuid)
		return 0;
	if (stat(device, &st) != 0 || !S_ISBLK(st.st_mode)) {
		int e = errno ? errno : ENOTBLK;

		return iom_err(msg, msglen, e, "'%s' is not a block device", device);
	}
	if (!recognise(device, own))
		return 0; /* not our filesystem: whatever is mounted is not ours to undo */
	if ((ret = iom_read_file("/proc/self/mountinfo", &text, NULL)) < 0)
		return iom_err(msg, msglen, -ret, "cannot read /proc/self/mountinfo: %s",
			       strerror(-ret));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned maj, min;
		char mp[4096], src[4096], *dash;
		struct stat sst;
		bool same;

		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &maj, &min, mp) != 3)
			continue;
		dash = strstr(line, " - ");
		if (!dash || sscanf(dash, " - %*s %4095s", src) != 1)
			src[0] = '\0';
		iom_unescape_octal(mp);
		iom_unescape_octal(src);
		same = makedev(maj, min) == st.st_rdev ||
		       (src[0] == '/' && stat(src, &sst) == 0 && S_ISBLK(sst.st_mode) &&
			sst.st_rdev == st.st_rdev);
		if (same && ours(mp)) {
			dirs = xrealloc(dirs, (ndirs + 1) * sizeof(*dirs));
			dirs[ndirs++] = xstrdup(mp);
		}
	}
	free(text);
	ret = 0;
	/* the last mounted first: a mount stacked on another comes off before it */
	for (size_t i = ndirs; i-- > 0;) {
		if (ret >= 0) {
			int r = iom_fs_unmount(dirs[i], 0, msg, msglen);

			ret = r < 0 ? r : ret + 1;
		}
		free(dirs[i]);
	}
	free(dirs);
	return ret;
}

/* ---- journal records -------------------------------------------------------------------- */

char *iom_fs_made_format(const char *device, const struct iom_fs_made *made)
{
	return xasprintf("%s %s %s %s", device, made->fstype, made->uuid[0] ? made->uuid : "-",
			 made->label[0] ? made->label : "-");
}

int iom_fs_made_parse(const char *text, char **device, struct iom_fs_made *made)
{
	char dev[4096], fs[16], uuid[64], label[32], extra;

	*device = NULL;
	memset(made, 0, sizeof(*made));
	if (sscanf(text, "%4095s %15s %63s %31s %c", dev, fs, uuid, label, &extra) != 4)
		return -EINVAL;
	if (!kind_of(fs))
		return -EINVAL;
	if (strcmp(fs, "raw") == 0) {
		if (strcmp(uuid, "-") || strcmp(label, "-"))
			return -EINVAL;
	} else {
		char want[16];

		if (!uuid_valid(uuid))
			return -EINVAL;
		label_of(uuid, want, sizeof(want));
		if (strcmp(label, want) != 0)
			return -EINVAL;
		memcpy(made->uuid, uuid, IOM_FS_UUID_LEN + 1);   /* validated: 36 characters */
		memcpy(made->label, want, sizeof(made->label)); /* equal to label */
	}
	memcpy(made->fstype, kind_of(fs)->name, strlen(fs) + 1);
	*device = xstrdup(dev);
	return 0;
}
