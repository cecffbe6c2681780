//! How many CPUs the process may use: the default size of a pool.
//!
//! Two limits, each read when asked, and the smaller one wins:
//!
//! * **The affinity mask** of the process ([`affinity::allowed_cpus`]: what `taskset`, `numactl` or
//!   a cgroup cpuset allows its main thread), counted. The process's rather than the calling
//!   thread's (std's `available_parallelism` reads the caller's), so that a pool built from a
//!   pinned thread still gets the whole allowance.
//! * **The cgroup CPU quota**, the bandwidth a container runtime sets with `--cpus`: cgroup v2's
//!   `cpu.max` (`QUOTA PERIOD`, or `max` for none) and v1's `cpu.cfs_quota_us` /
//!   `cpu.cfs_period_us` (a quota of -1 for none), in the process's cgroup and every cgroup above
//!   it up to the controller's mount, the smallest one. A quota of 1.5 CPUs gives 2 threads
//!   (rounded up, as Go 1.25 and the JVM do: a pool of 1 would leave half a CPU unused). The
//!   cgroup is found through `/proc/self/cgroup` and the mount through `/proc/self/mountinfo`.
//!
//! A file that is missing, unreadable or malformed sets no limit (a broken `/sys` must not stop a
//! program from starting); neither limit readable, std's `available_parallelism` decides. Paths are
//! read under a root directory, `/` but for tests, which point it at a made-up tree.
//! Linux only; elsewhere std decides.

use std::path::{Path, PathBuf};

#[cfg(target_os = "linux")]
use super::affinity;

/// The CPUs the process may use now: the smaller of its affinity mask's count and its cgroup CPU
/// quota rounded up, or std's `available_parallelism` where neither can be read; at least 1.
pub(crate) fn available_cpus() -> usize {
    #[cfg(target_os = "linux")]
    {
        let mask = affinity::allowed_cpus().ok().map(|cpus| cpus.len());
        let quota = cgroup_cpu_limit(Path::new("/"));
        if let Some(n) = [mask, quota].into_iter().flatten().filter(|&n| n > 0).min() {
            return n;
        }
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The CPUs the machine has (configured, online or not): the most a CPU limit can ever allow.
pub(crate) fn machine_cpus() -> usize {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `sysconf` has no preconditions.
        let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
        if n > 0 {
            return n as usize;
        }
    }
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The CPU quota of the process's cgroup and the cgroups above it, in CPUs rounded up, read under
/// `root`; `None` if no quota is set or none can be read.
pub(crate) fn cgroup_cpu_limit(root: &Path) -> Option<usize> {
    let cgroups = std::fs::read_to_string(root.join("proc/self/cgroup")).ok()?;
    let mountinfo = std::fs::read_to_string(root.join("proc/self/mountinfo")).ok()?;
    // v2 first: on a hybrid system the v1 cpu controller, if mounted, is the one in force, but a
    // pure v2 system has only the `0::` line.
    let (dir, top, version) = cgroup_dir(&cgroups, &mountinfo, root)?;
    let quota = walk_up(&dir, &top, |d| match version {
        Version::V2 => read_v2(d),
        Version::V1 => read_v1(d),
    })?;
    Some((quota.ceil() as usize).max(1))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Version {
    V1,
    V2,
}

/// The directory of the process's cgroup for the cpu controller, under `root`, and the directory
/// its hierarchy is mounted on: the v1 `cpu` hierarchy if one is mounted, else the v2 one.
fn cgroup_dir(cgroups: &str, mountinfo: &str, root: &Path) -> Option<(PathBuf, PathBuf, Version)> {
    let mut v2_path = None;
    let mut v1_path = None;
    for line in cgroups.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_id), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        if controllers.is_empty() {
            v2_path = Some(path);
        } else if controllers.split(',').any(|c| c == "cpu") {
            v1_path = Some(path);
        }
    }
    let mounts = mountinfo.lines().filter_map(parse_mount);
    let mut v2_mount = None;
    for mount in mounts {
        match mount.fstype {
            "cgroup" if mount.options.split(',').any(|o| o == "cpu") => {
                if let Some(path) = v1_path {
                    return Some((mount.dir_of(path, root)?, mount.dir(root), Version::V1));
                }
            }
            "cgroup2" => v2_mount = Some(mount),
            _ => {}
        }
    }
    let mount = v2_mount?;
    Some((mount.dir_of(v2_path?, root)?, mount.dir(root), Version::V2))
}

/// One line of `/proc/self/mountinfo`: the root of the mounted tree, where it is mounted, the
/// filesystem type and its options.
struct Mount<'a> {
    tree_root: &'a str,
    mount_point: &'a str,
    fstype: &'a str,
    options: &'a str,
}

/// `36 35 98:0 /tree_root /mount_point rw,noatime shared:1 - fstype source super_options`.
fn parse_mount(line: &str) -> Option<Mount<'_>> {
    let (left, right) = line.split_once(" - ")?;
    let mut left = left.split(' ');
    let tree_root = left.nth(3)?;
    let mount_point = left.next()?;
    let mut right = right.split(' ');
    let fstype = right.next()?;
    let options = right.nth(1)?;
    Some(Mount {
        tree_root,
        mount_point,
        fstype,
        options,
    })
}

impl Mount<'_> {
    /// The mount point, under `root`.
    fn dir(&self, root: &Path) -> PathBuf {
        root.join(self.mount_point.trim_start_matches('/'))
    }

    /// The directory, under `root`, of cgroup `path` in this mount: the mount point plus what of
    /// `path` lies below the mounted tree's root. `None` if the cgroup is outside the mounted tree.
    fn dir_of(&self, path: &str, root: &Path) -> Option<PathBuf> {
        let below = if self.tree_root == "/" {
            path
        } else {
            let rest = path.strip_prefix(self.tree_root)?;
            if !(rest.is_empty() || rest.starts_with('/')) {
                return None;
            }
            rest
        };
        let mut dir = self.dir(root);
        dir.extend(below.split('/').filter(|p| !p.is_empty()));
        Some(dir)
    }
}

/// The smallest quota `read` finds in `dir` and each directory above it up to `top`, the
/// hierarchy's mount point (a cgroup without the controller has no file, yet its parent's quota
/// still binds it).
fn walk_up(dir: &Path, top: &Path, read: impl Fn(&Path) -> Reading) -> Option<f64> {
    let mut smallest: Option<f64> = None;
    let mut dir = Some(dir);
    while let Some(d) = dir.filter(|d| d.starts_with(top)) {
        if let Reading::Quota(q) = read(d) {
            smallest = Some(smallest.map_or(q, |s| s.min(q)));
        }
        dir = d.parent();
    }
    smallest
}

/// What a cgroup's quota file says.
#[derive(Debug, PartialEq)]
enum Reading {
    /// No file: no cpu controller in this cgroup.
    Missing,
    /// No limit.
    Unlimited,
    /// This many CPUs' worth of time per period.
    Quota(f64),
    /// Not a quota this parser knows: no limit taken from it.
    Malformed,
}

/// cgroup v2's `cpu.max`: `max PERIOD` or `QUOTA PERIOD` (the period may be absent: 100 ms).
fn read_v2(dir: &Path) -> Reading {
    let Ok(text) = std::fs::read_to_string(dir.join("cpu.max")) else {
        return Reading::Missing;
    };
    let mut fields = text.split_whitespace();
    let quota = fields.next();
    let period = fields
        .next()
        .map_or(Some(100_000.0), |p| p.parse::<f64>().ok());
    match (quota, period) {
        (Some("max"), _) => Reading::Unlimited,
        (Some(q), Some(p)) => quota_of(q.parse::<f64>().ok(), p),
        _ => Reading::Malformed,
    }
}

/// cgroup v1's `cpu.cfs_quota_us` (-1: no limit) and `cpu.cfs_period_us`.
fn read_v1(dir: &Path) -> Reading {
    let Ok(quota) = std::fs::read_to_string(dir.join("cpu.cfs_quota_us")) else {
        return Reading::Missing;
    };
    let quota = quota.trim();
    if quota == "-1" {
        return Reading::Unlimited;
    }
    let Some(period) = std::fs::read_to_string(dir.join("cpu.cfs_period_us"))
        .ok()
        .and_then(|p| p.trim().parse::<f64>().ok())
    else {
        return Reading::Malformed;
    };
    quota_of(quota.parse::<f64>().ok(), period)
}

fn quota_of(quota: Option<f64>, period: f64) -> Reading {
    match quota {
        Some(q) if q > 0.0 && q.is_finite() && period > 0.0 && period.is_finite() => {
            Reading::Quota(q / period)
        }
        _ => Reading::Malformed,
    }
}

#[cfg(all(test, not(any(forkjoin_loom, forkjoin_shuttle))))]
mod tests {
    use super::*;

    /// A made-up root: `files` are (path under the root, contents).
    struct Tree(PathBuf);

    impl Tree {
        fn new(name: &str, files: &[(&str, &str)]) -> Tree {
            let root =
                std::env::temp_dir().join(format!("forkjoin-cgroup-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            for (path, contents) in files {
                let path = root.join(path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, contents).unwrap();
            }
            Tree(root)
        }

        fn limit(&self) -> Option<usize> {
            cgroup_cpu_limit(&self.0)
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const V2_MOUNT: &str = "30 24 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw\n";
    const V1_MOUNTS: &str = "\
25 24 0:22 / /sys/fs/cgroup/memory rw,nosuid shared:9 - cgroup cgroup rw,memory
26 24 0:23 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:10 - cgroup cgroup rw,cpu,cpuacct
";

    fn v2(name: &str, cgroup: &str, files: &[(&str, &str)]) -> Tree {
        let mut all = vec![
            ("proc/self/cgroup", cgroup),
            ("proc/self/mountinfo", V2_MOUNT),
        ];
        all.extend_from_slice(files);
        Tree::new(name, &all)
    }

    #[test]
    fn v2_quotas_round_up_and_the_smallest_on_the_path_wins() {
        let top = "sys/fs/cgroup/cpu.max";
        let mid = "sys/fs/cgroup/kube/cpu.max";
        let own = "sys/fs/cgroup/kube/pod/cpu.max";
        let cg = "0::/kube/pod\n";
        assert_eq!(
            v2(
                "a",
                cg,
                &[
                    (top, "max 100000\n"),
                    (mid, "max 100000\n"),
                    (own, "max 100000\n")
                ]
            )
            .limit(),
            None
        );
        assert_eq!(
            v2(
                "b",
                cg,
                &[
                    (top, "max 100000\n"),
                    (mid, "max\n"),
                    (own, "150000 100000\n")
                ]
            )
            .limit(),
            Some(2)
        );
        assert_eq!(
            v2(
                "c",
                cg,
                &[
                    (top, "max 100000\n"),
                    (mid, "200000 100000\n"),
                    (own, "800000 100000\n")
                ]
            )
            .limit(),
            Some(2)
        );
        assert_eq!(
            v2("d", cg, &[(own, "50000 100000\n")]).limit(),
            Some(1),
            "half a CPU: 1"
        );
        assert_eq!(
            v2("e", cg, &[(own, "300000\n")]).limit(),
            Some(3),
            "the default period"
        );
    }

    #[test]
    fn v2_malformed_and_missing_files_set_no_limit() {
        let own = "sys/fs/cgroup/app/cpu.max";
        let cg = "0::/app\n";
        for bad in [
            "",
            "lots 100000",
            "100000 0",
            "-5 100000",
            "NaN 1",
            "100000 x",
        ] {
            assert_eq!(v2("m", cg, &[(own, bad)]).limit(), None, "{bad:?}");
        }
        assert_eq!(v2("n", cg, &[]).limit(), None, "no cpu.max at all");
        // A cgroup without the controller (no file) under one with a quota: bound by it.
        let cg2 = "0::/app/inner\n";
        assert_eq!(
            v2("n2", cg2, &[("sys/fs/cgroup/app/cpu.max", "200000 100000")]).limit(),
            Some(2)
        );
        // A malformed level does not hide a valid one above it.
        let top = "sys/fs/cgroup/cpu.max";
        assert_eq!(
            v2("o", cg, &[(top, "400000 100000"), (own, "garbage")]).limit(),
            Some(4)
        );
        // No cgroup file, no mountinfo, no v2 line.
        assert_eq!(Tree::new("p", &[]).limit(), None);
        assert_eq!(
            Tree::new("q", &[("proc/self/cgroup", "0::/app\n")]).limit(),
            None
        );
        assert_eq!(v2("r", "", &[(own, "100000 100000")]).limit(), None);
    }

    #[test]
    fn v1_quota_and_period_of_the_cpu_hierarchy() {
        let dir = "sys/fs/cgroup/cpu,cpuacct/docker/abc";
        let cgroup = "12:memory:/docker/abc\n11:cpu,cpuacct:/docker/abc\n0::/\n";
        let tree = |name, quota: &str, period: &str| {
            Tree::new(
                name,
                &[
                    ("proc/self/cgroup", cgroup),
                    ("proc/self/mountinfo", V1_MOUNTS),
                    (&format!("{dir}/cpu.cfs_quota_us"), quota),
                    (&format!("{dir}/cpu.cfs_period_us"), period),
                ],
            )
        };
        assert_eq!(tree("v1a", "250000\n", "100000\n").limit(), Some(3));
        assert_eq!(tree("v1b", "-1\n", "100000\n").limit(), None);
        assert_eq!(tree("v1c", "100000\n", "0\n").limit(), None, "malformed");
        assert_eq!(tree("v1d", "x\n", "100000\n").limit(), None, "malformed");
    }

    #[test]
    fn a_mount_of_part_of_the_tree_maps_the_path_below_its_root() {
        // A container sees its own cgroup mounted at /sys/fs/cgroup, the tree's root being the
        // cgroup's path on the host.
        let mountinfo = "30 24 0:26 /kube/pod /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        let tree = Tree::new(
            "ns",
            &[
                ("proc/self/cgroup", "0::/kube/pod/app\n"),
                ("proc/self/mountinfo", mountinfo),
                ("sys/fs/cgroup/app/cpu.max", "max 100000"),
                ("sys/fs/cgroup/cpu.max", "100000 100000"),
            ],
        );
        assert_eq!(tree.limit(), Some(1));
        // A cgroup outside the mounted tree: unknown.
        let outside = Tree::new(
            "outside",
            &[
                ("proc/self/cgroup", "0::/other\n"),
                ("proc/self/mountinfo", mountinfo),
                ("sys/fs/cgroup/cpu.max", "100000 100000"),
            ],
        );
        assert_eq!(outside.limit(), None);
    }

    #[test]
    fn the_machine_answers_something_sane() {
        let n = available_cpus();
        assert!(n >= 1);
        #[cfg(target_os = "linux")]
        assert!(n <= affinity::allowed_cpus().unwrap().len());
    }
}
