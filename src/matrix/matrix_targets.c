/* SPDX-License-Identifier: MIT */
/*
 * matrix_targets — the targets of a matrix: labels, path and paths, filesystems (a list that
 * expands one target per filesystem), hosts, and every workload key's effective list for each
 * target (its own when it sets the key, the workload's otherwise).
 */
#include "matrix_in.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "engine/engine.h"
#include "hooks.h"
#include "units.h"
#include "util.h"

static bool is_device_path(const char *path)
{
	return strncmp(path, "/dev/", 5) == 0;
}

/* several paths: paths = [ … ] of target idx (t->paths, t->npaths; t->path a copy of the first):
 * not with path or device, not with filesystems, two or more, no path twice, all files or all
 * devices (by the "/dev/" prefix, as size's requirement goes). */
static int read_paths(struct ctx *c, const config_setting_t *g, size_t idx)
{
	struct iom_target *t = &c->m->targets[idx];
	const config_setting_t *s = config_setting_get_member(g, "paths");
	int n, ret;

	if (!s)
		return 0;
	if (config_setting_get_member(g, "path") || config_setting_get_member(g, "device"))
		return mx_fail(c, s, "target '%s' has both paths and %s: give one", t->label,
			    config_setting_get_member(g, "path") ? "path" : "device");
	if (config_setting_get_member(g, "filesystems"))
		return mx_fail(c, s, "target '%s': paths and filesystems do not go together (a "
			    "filesystem is made on one device)", t->label);
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY && config_setting_type(s) != CONFIG_TYPE_LIST)
		return mx_fail(c, s, "paths must be a list such as [ \"a.scratch\", \"b.scratch\" ]");
	n = config_setting_length(s);
	if (n == 0)
		return mx_fail(c, s, "target '%s': paths is empty (give two or more, or path for one)",
			    t->label);
	if (n > MAX_TARGETS)
		return mx_fail(c, s, "target '%s': %d paths, at most %d", t->label, n, MAX_TARGETS);
	t->paths = xcalloc((size_t)n, sizeof(char *));
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);

		if ((ret = mx_read_string(c, e, "a path", MAX_PATH_LEN, CS_TEXT, &t->paths[i])) < 0)
			return ret;
		t->npaths = (size_t)i + 1;
		for (int k = 0; k < i; k++)
			if (strcmp(t->paths[k], t->paths[i]) == 0)
				return mx_fail(c, e, "target '%s': path '%s' is listed twice", t->label,
					    t->paths[i]);
		if (is_device_path(t->paths[i]) != is_device_path(t->paths[0]))
			return mx_fail(c, e, "target '%s' mixes files and devices ('%s' and '%s'): "
				    "give all scratch files or all block devices", t->label,
				    t->paths[0], t->paths[i]);
	}
	t->path = xstrdup(t->paths[0]);
	if (n == 1) { /* one path is path = …; */
		free(t->paths[0]);
		free(t->paths);
		t->paths = NULL;
		t->npaths = 0;
	}
	return 0;
}

/* filesystems = [ … ] of target idx (into c->fs_list[idx]), with its mkfs and mount options
 * (already read). */
static int read_filesystems(struct ctx *c, const config_setting_t *g, size_t idx)
{
	struct iom_target *t = &c->m->targets[idx];
	const config_setting_t *s = config_setting_get_member(g, "filesystems");
	bool any_fs = false;
	char sub[IOM_ERRLEN];
	int n, ret;

	if (!s) {
		if (t->mkfs_options || t->mount_options)
			return mx_fail(c, g, "target '%s' has mkfs or mount options but no filesystems",
				    t->label);
		return 0;
	}
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY && config_setting_type(s) != CONFIG_TYPE_LIST)
		return mx_fail(c, s, "filesystems must be a list such as [ \"ext4\", \"xfs\", \"raw\" ]");
	n = config_setting_length(s);
	if (n == 0)
		return mx_fail(c, s, "filesystems is empty");
	if (!is_device_path(t->path))
		return mx_fail(c, s, "target '%s': filesystems need a block device (device = "
			    "\"/dev/...\"), not '%s'", t->label, t->path);
	if (!t->destructive)
		return mx_fail(c, s, "target '%s': making filesystems destroys what is on '%s'; say "
			    "so with destructive = true", t->label, t->path);
	c->fs_list[idx] = xcalloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);

		if ((ret = mx_read_string(c, e, "a filesystem", MAX_LABEL, CS_NAME,
				       &c->fs_list[idx][i])) < 0)
			return ret;
		if (iom_fs_check_type(c->fs_list[idx][i], sub, sizeof(sub)) < 0)
			return mx_fail(c, e, "%s", sub);
		for (int k = 0; k < i; k++)
			if (strcmp(c->fs_list[idx][k], c->fs_list[idx][i]) == 0)
				return mx_fail(c, e, "filesystem '%s' is listed twice",
					    c->fs_list[idx][i]);
		any_fs |= strcmp(c->fs_list[idx][i], "raw") != 0;
	}
	if (any_fs && !t->size)
		return mx_fail(c, g, "target '%s' needs a size: the size of the scratch file on each "
			    "filesystem (e.g. size = \"1G\";)", t->label);
	return 0;
}

/* Frees what is left of the filesystems lists (all of them when the targets were not
 * expanded). */
void mx_free_fs_lists(struct ctx *c)
{
	for (size_t i = 0; i < c->nfs_list; i++) {
		for (size_t f = 0; c->fs_list[i] && c->fs_list[i][f]; f++)
			free(c->fs_list[i][f]);
		free(c->fs_list[i]);
	}
	free(c->fs_list);
	c->fs_list = NULL;
	c->nfs_list = 0;
}

/* Replaces each target with filesystems by one target per filesystem, "<label>-<fstype>". */
static int expand_filesystems(struct ctx *c, const config_setting_t *s)
{
	struct iom_matrix *m = c->m;
	struct iom_target *nt;
	const config_setting_t *(*ns)[IOM_DIM_COUNT];
	size_t total = 0, k = 0;
	bool any = false;

	for (size_t i = 0; i < m->ntargets; i++) {
		size_t n = 0;

		while (c->fs_list[i] && c->fs_list[i][n])
			n++;
		total += n ? n : 1;
		any = any || c->fs_list[i];
	}
	if (!any) /* a list of one filesystem is expanded too: "d" becomes "d-ext4" */
		return 0;
	if (total > MAX_TARGETS)
		return mx_fail(c, s, "%zu targets with their filesystems: at most %d", total,
			    MAX_TARGETS);
	nt = xcalloc(total, sizeof(*nt));
	ns = xcalloc(total, sizeof(*ns));
	for (size_t i = 0; i < m->ntargets; i++) {
		struct iom_target *t = &m->targets[i];

		if (!c->fs_list[i]) {
			nt[k] = *t;
			memcpy(ns[k++], c->t_set[i], sizeof(ns[0]));
			continue;
		}
		for (size_t f = 0; c->fs_list[i][f]; f++) {
			struct iom_target *x = &nt[k];

			*x = *t;
			x->label = xasprintf("%s-%s", t->label, c->fs_list[i][f]);
			x->path = xstrdup(t->path);
			x->filesystem = xstrdup(c->fs_list[i][f]);
			x->controller = t->controller ? xstrdup(t->controller) : NULL;
			x->fs_type = c->fs_list[i][f];
			x->mkfs_options = t->mkfs_options ? xstrdup(t->mkfs_options) : NULL;
			x->mount_options = t->mount_options ? xstrdup(t->mount_options) : NULL;
			x->hosts = t->nhosts ? xcalloc(t->nhosts, sizeof(*x->hosts)) : NULL;
			for (size_t h = 0; h < t->nhosts; h++) /* many hosts */
				x->hosts[h] = xstrdup(t->hosts[h]);
			memset(&x->dim[IOM_DIM_TARGET], 0, sizeof(x->dim[0])); /* unused */
			for (int d = 1; d < IOM_DIM_COUNT; d++)
				mx_values_copy(&x->dim[d], &t->dim[d]);
			memcpy(ns[k++], c->t_set[i], sizeof(ns[0]));
		}
		free(t->label);
		free(t->path);
		free(t->filesystem);
		free(t->controller);
		free(t->mkfs_options);
		free(t->mount_options);
		for (size_t h = 0; h < t->nhosts; h++)
			free(t->hosts[h]);
		free(t->hosts);
		for (int d = 0; d < IOM_DIM_COUNT; d++)
			mx_values_free(&t->dim[d]);
		free(c->fs_list[i]); /* the names now belong to the new targets */
		c->fs_list[i] = NULL;
	}
	for (size_t i = 0; i < total; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(nt[i].label, nt[j].label) == 0) {
				char label[64];

				snprintf(label, sizeof(label), "%s", nt[i].label);
				free(m->targets);
				m->targets = nt;
				m->ntargets = total;
				free(c->t_set);
				c->t_set = ns;
				return mx_fail(c, s, "two targets are labelled '%s' once their filesystems "
					    "are expanded", label);
			}
	free(m->targets);
	m->targets = nt;
	m->ntargets = total;
	free(c->t_set);
	c->t_set = ns;
	return 0;
}

/* Many hosts: a target's hosts = [ "vm1", "rank:2" ] — short hostnames or rank selectors. */
static int read_target_hosts(struct ctx *c, const config_setting_t *g, size_t idx)
{
	struct iom_target *t = &c->m->targets[idx];
	const config_setting_t *s = config_setting_get_member(g, "hosts");
	int n, type;

	if (!s)
		return 0;
	type = config_setting_type(s);
	if (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST)
		return mx_fail(c, s, "hosts of target '%s' must be a list of short hostnames or "
				  "rank:N selectors, such as [ \"vm1\", \"rank:2\" ], not %s",
			    t->label, mx_config_type_name(type));
	n = config_setting_length(s);
	if (n == 0)
		return mx_fail(c, s, "hosts of target '%s' is an empty list: the target would live "
				  "nowhere", t->label);
	t->hosts_line = mx_line_of(s);
	t->hosts = xcalloc((size_t)n, sizeof(*t->hosts));
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
		const char *v;
		char *end;
		int ret;

		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return mx_fail(c, e, "hosts of target '%s' are strings (a short hostname or "
					  "rank:N), not %s", t->label,
				    mx_config_type_name(config_setting_type(e)));
		v = config_setting_get_string(e);
		if (strncmp(v, "rank:", 5) == 0) {
			long r = strtol(v + 5, &end, 10);

			if (!isdigit((unsigned char)v[5]) || *end || r < 0 || r > 4095)
				return mx_fail(c, e, "hosts of target '%s': '%s' is not a rank selector "
						  "rank:N (N from 0 to 4095)", t->label, v);
		}
		if ((ret = mx_read_string(c, e, "hosts", 63, strncmp(v, "rank:", 5) == 0 ? CS_TEXT :
				       CS_NAME, &t->hosts[i])) < 0)
			return ret;
		t->nhosts = (size_t)i + 1;
	}
	return 0;
}

static int read_target(struct ctx *c, const config_setting_t *g, size_t idx)
{
	struct iom_matrix *m = c->m;
	struct iom_target *t = &m->targets[idx];
	const config_setting_t *s;
	int ret;

	t->line = mx_line_of(g);
	if ((ret = mx_check_members(c, g, IOM_SEC_TARGET)) < 0)
		return ret;
	s = config_setting_get_member(g, "label");
	if (!s)
		return mx_fail(c, g, "target %zu has no label (required: a unique name such as "
				  "label = \"nvme0\";)", idx + 1);
	if ((ret = mx_read_string(c, s, "label", MAX_LABEL, CS_NAME, &t->label)) < 0)
		return ret;
	for (size_t i = 0; i < idx; i++)
		if (strcmp(m->targets[i].label, t->label) == 0)
			return mx_fail(c, s, "duplicate label '%s' (also the label of the target at "
					  "line %d)", t->label, m->targets[i].line);
	if ((ret = read_paths(c, g, idx)) < 0)
		return ret;
	s = config_setting_get_member(g, "path");
	if (!s) /* paths = [ … ], of several or of one (read as path) */
		s = config_setting_get_member(g, "paths");
	if (s && !t->npaths && config_setting_get_member(g, "device"))
		return mx_fail(c, s, "target '%s' has both path and device: give one", t->label);
	if (!s && (s = config_setting_get_member(g, "device"))) {
		if ((ret = mx_read_string(c, s, "device", MAX_PATH_LEN, CS_TEXT, &t->path)) < 0)
			return ret;
		if (!is_device_path(t->path))
			return mx_fail(c, s, "device '%s' is not under /dev/", t->path);
	}
	if (!s)
		return mx_fail(c, g, "target '%s' has no path (required: a scratch file or a block "
				  "device)", t->label);
	if (!t->path && (ret = mx_read_string(c, s, "path", MAX_PATH_LEN, CS_TEXT, &t->path)) < 0)
		return ret;
	for (size_t i = 0; i < idx; i++)
		for (size_t p = 0; p < (t->npaths ? t->npaths : 1); p++)
			for (size_t q = 0; q < (m->targets[i].npaths ? m->targets[i].npaths : 1);
			     q++) {
				const char *a = t->npaths ? t->paths[p] : t->path;
				const char *b = m->targets[i].npaths ? m->targets[i].paths[q]
								     : m->targets[i].path;

				if (strcmp(a, b) == 0)
					return mx_fail(c, s, "target '%s' has the same path as target "
						    "'%s' ('%s')", t->label,
						    m->targets[i].label, a);
			}
	if (!config_setting_get_member(g, "size") && !is_device_path(t->path))
		return mx_fail(c, g, "target '%s' has no size (required for a scratch file, e.g. "
				  "size = \"1G\";)", t->label);
	/* size, filesystem, controller, overwrite, destructive, mkfs and mount options */
	if ((ret = mx_read_landed_section(c, IOM_SEC_TARGET, g, t)) < 0)
		return ret;
	if ((ret = read_filesystems(c, g, idx)) < 0)
		return ret;
	if ((ret = read_target_hosts(c, g, idx)) < 0) /* many hosts */
		return ret;
	for (int d = 1; d < IOM_DIM_COUNT; d++) {
		const struct iom_key *k = iom_dim_key((enum iom_dim)d);
		bool listed;

		s = config_setting_get_member(g, k->name);
		if (!s) {
			mx_values_copy(&t->dim[d], &m->workload[d]);
			continue;
		}
		if ((ret = mx_read_values(c, k, s, &t->dim[d], &listed)) < 0)
			return ret;
		m->listed[d] |= listed;
		c->t_set[idx][d] = s;
	}
	return 0;
}

int mx_read_targets(struct ctx *c)
{
	struct iom_matrix *m = c->m;
	const config_setting_t *s = config_setting_get_member(config_root_setting(&c->cfg),
							     "targets");
	int n, ret;

	if (!s)
		return mx_fail_line(c, 1, "missing required key 'targets' (a list of targets, e.g. "
				       "targets = ( { label = \"a\"; path = \"a.scratch\"; size = "
				       "\"1G\"; } );)");
	m->targets_line = mx_line_of(s);
	if (config_setting_type(s) == CONFIG_TYPE_GROUP) {
		/* a single target written without the list */
		n = 1;
	} else if (config_setting_type(s) == CONFIG_TYPE_LIST) {
		n = config_setting_length(s);
		if (n == 0)
			return mx_fail(c, s, "targets is empty: give at least one target");
	} else {
		return mx_fail(c, s, "targets must be a list of groups ( { ... }, { ... } ), not %s",
			    mx_config_type_name(config_setting_type(s)));
	}
	if (n > MAX_TARGETS)
		return mx_fail(c, s, "%d targets: at most %d", n, MAX_TARGETS);
	m->targets = xcalloc((size_t)n, sizeof(*m->targets));
	c->t_set = xcalloc((size_t)n, sizeof(*c->t_set));
	c->fs_list = xcalloc((size_t)n, sizeof(*c->fs_list));
	c->nfs_list = (size_t)n;
	for (int i = 0; i < n; i++) {
		const config_setting_t *g = config_setting_type(s) == CONFIG_TYPE_GROUP
						    ? s : config_setting_get_elem(s, (unsigned)i);

		if (config_setting_type(g) != CONFIG_TYPE_GROUP)
			return mx_fail(c, g, "target %d must be a group { label = ...; path = ...; }, "
					  "not %s", i + 1, mx_config_type_name(config_setting_type(g)));
		m->ntargets = (size_t)i + 1;
		if ((ret = read_target(c, g, (size_t)i)) < 0)
			return ret;
	}
	if ((ret = expand_filesystems(c, s)) < 0)
		return ret;
	if (m->ntargets > 1)
		m->listed[IOM_DIM_TARGET] = true;
	/* A key set differently by targets varies across the plan: a dimension too. */
	for (int d = 1; d < IOM_DIM_COUNT; d++)
		for (size_t i = 1; i < m->ntargets; i++)
			if (!mx_values_equal(&m->targets[i].dim[d], &m->targets[0].dim[d]))
				m->listed[d] = true;
	return 0;
}
