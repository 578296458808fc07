//! The few directory operations of a skill scan, by file descriptor.
//!
//! On Linux a directory is walked through its descriptor: children are
//! opened relative to it (`openat`, no path walk from `/` for every file),
//! entries come straight from `getdents64` (no `fstat` as `opendir` does)
//! with their type and inode, and a `SKILL.md` is opened relative to its
//! directory. Elsewhere the same interface is served by `std::fs` and paths.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;

use crate::skill::{ReadError, MAX_SKILL_BYTES};

/// What a directory entry is, from the entry itself (no `stat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Dir,
    File,
    Symlink,
    Other,
}

#[cfg(not(target_os = "linux"))]
impl Kind {
    /// The kind of a file type from `lstat` or a directory entry (Linux
    /// reads it from the raw `stat` and `getdents` values instead).
    fn of(ft: std::fs::FileType) -> Self {
        if ft.is_symlink() {
            Kind::Symlink
        } else if ft.is_dir() {
            Kind::Dir
        } else if ft.is_file() {
            Kind::File
        } else {
            Kind::Other
        }
    }
}

/// One directory entry (never `.` or `..`).
#[derive(Debug)]
pub(crate) struct Entry {
    pub name: OsString,
    pub kind: Kind,
    /// The inode number (0 where the platform gives none).
    pub ino: u64,
}

/// Identity of a directory: device and inode.
pub(crate) type DirId = (u64, u64);

/// What the discovery cache compares of a file or directory: device,
/// inode, size, modification and status-change times (ns since the epoch).
/// Any write, rename into place, `touch` or `chmod` changes one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Stamp(pub u64, pub u64, pub u64, pub i64, pub i64);

impl Stamp {
    /// Device and inode.
    pub fn id(&self) -> DirId {
        (self.0, self.1)
    }

    /// The later of the modification and status-change times.
    pub fn changed_ns(&self) -> i64 {
        self.3.max(self.4)
    }
}

/// `stat` of `path` (following a final symbolic link when `follow`): its
/// stamp and kind. One system call.
#[cfg(target_os = "linux")]
pub(crate) fn stat_path(path: &Path, follow: bool) -> std::io::Result<(Stamp, Kind)> {
    use rustix::fs::{statat, AtFlags, CWD};
    let flags = if follow {
        AtFlags::empty()
    } else {
        AtFlags::SYMLINK_NOFOLLOW
    };
    Ok(stamp_of(&statat(CWD, path, flags)?))
}

/// The stamp and kind of a `stat` result.
#[cfg(target_os = "linux")]
#[allow(clippy::unnecessary_cast)] // field types differ between targets
fn stamp_of(st: &rustix::fs::Stat) -> (Stamp, Kind) {
    use rustix::fs::FileType;
    let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
    let stamp = Stamp(
        st.st_dev as u64,
        st.st_ino as u64,
        st.st_size as u64,
        ns(st.st_mtime as i64, st.st_mtime_nsec as i64),
        ns(st.st_ctime as i64, st.st_ctime_nsec as i64),
    );
    let kind = match FileType::from_raw_mode(st.st_mode) {
        FileType::Directory => Kind::Dir,
        FileType::RegularFile => Kind::File,
        FileType::Symlink => Kind::Symlink,
        _ => Kind::Other,
    };
    (stamp, kind)
}

/// `stat` of `path` (following a final symbolic link when `follow`).
#[cfg(all(unix, not(target_os = "linux")))]
pub(crate) fn stat_path(path: &Path, follow: bool) -> std::io::Result<(Stamp, Kind)> {
    use std::os::unix::fs::MetadataExt;
    let m = if follow {
        std::fs::metadata(path)?
    } else {
        std::fs::symlink_metadata(path)?
    };
    let ns = |s: i64, n: i64| s.saturating_mul(1_000_000_000).saturating_add(n);
    let stamp = Stamp(
        m.dev(),
        m.ino(),
        m.size(),
        ns(m.mtime(), m.mtime_nsec()),
        ns(m.ctime(), m.ctime_nsec()),
    );
    Ok((stamp, Kind::of(m.file_type())))
}

/// No stamps without Unix metadata: the discovery cache is off.
#[cfg(not(unix))]
pub(crate) fn stat_path(_path: &Path, _follow: bool) -> std::io::Result<(Stamp, Kind)> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// Whether the discovery cache can work here (it needs [`stat_path`]).
pub(crate) const CACHE_SUPPORTED: bool = cfg!(unix);

/// Reads the `SKILL.md` at `path` (following links) as
/// [`Dir::read_skill`] does, for a directory that was not opened (its
/// listing came from the discovery cache).
pub(crate) fn read_skill_at<'b>(
    path: &Path,
    regular: bool,
    buf: &'b mut Vec<u8>,
) -> Result<&'b str, ReadError> {
    let file = std::fs::File::open(path).map_err(open_error)?;
    read_open_skill(file, !regular, buf)
}

/// Whether the symbolic link at `path` leads to a directory (as
/// [`Dir::link_is_dir`], by path).
pub(crate) fn link_is_dir_at(path: &Path) -> Option<bool> {
    std::fs::metadata(path).ok().map(|m| m.is_dir())
}

/// Reads an open `SKILL.md` into `buf` (cleared first; reused across
/// files, so a scan allocates no read buffer per skill): at most
/// [`MAX_SKILL_BYTES`] + 1 bytes, text only. `checked`: the caller has not
/// seen a regular-file directory entry, so the file's type and size are
/// checked first (one `fstat`; a larger file is refused without being read).
pub(crate) fn read_open_skill(
    file: std::fs::File,
    checked: bool,
    buf: &mut Vec<u8>,
) -> Result<&str, ReadError> {
    buf.clear();
    if checked {
        let meta = file.metadata().map_err(|e| ReadError::Io(e.to_string()))?;
        if !meta.is_file() {
            return Err(ReadError::Io("not a regular file".into()));
        }
        if meta.len() > MAX_SKILL_BYTES {
            return Err(ReadError::TooLarge(meta.len()));
        }
        buf.reserve(meta.len() as usize + 1);
    }
    // The file may grow between stat and read: read one byte past the cap.
    file.take(MAX_SKILL_BYTES + 1)
        .read_to_end(buf)
        .map_err(|e| ReadError::Io(e.to_string()))?;
    if buf.len() as u64 > MAX_SKILL_BYTES {
        return Err(ReadError::TooLarge(buf.len() as u64));
    }
    if buf.contains(&0) {
        return Err(ReadError::Binary);
    }
    std::str::from_utf8(buf).map_err(|_| ReadError::Binary)
}

fn open_error(e: std::io::Error) -> ReadError {
    match e.kind() {
        std::io::ErrorKind::NotFound => ReadError::Missing,
        _ => ReadError::Io(e.to_string()),
    }
}

#[cfg(target_os = "linux")]
mod imp {
    use std::ffi::{OsStr, OsString};
    use std::io;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    use rustix::fd::OwnedFd;
    use rustix::fs::{fstat, openat, statat, AtFlags, FileType, Mode, OFlags, RawDir, CWD};

    use super::{open_error, read_open_skill, stamp_of, DirId, Entry, Kind, Stamp};
    use crate::skill::ReadError;

    /// An open directory.
    pub(crate) struct Dir {
        fd: OwnedFd,
    }

    const DIR_FLAGS: OFlags = OFlags::RDONLY
        .union(OFlags::DIRECTORY)
        .union(OFlags::CLOEXEC)
        .union(OFlags::NOCTTY);

    impl Dir {
        /// Opens `path`, following symbolic links.
        pub fn open(path: &Path) -> io::Result<Self> {
            Ok(Self {
                fd: openat(CWD, path, DIR_FLAGS, Mode::empty())?,
            })
        }

        /// Opens `path` when it is a directory and not a symbolic link.
        pub fn open_nofollow(path: &Path) -> io::Result<Self> {
            Ok(Self {
                fd: openat(CWD, path, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty())?,
            })
        }

        /// Opens the real (not symlinked) subdirectory `name`; `_path` is
        /// its full path (unused here).
        pub fn open_child(&self, name: &OsStr, _path: &Path) -> io::Result<Self> {
            Ok(Self {
                fd: openat(&self.fd, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty())?,
            })
        }

        /// Device and inode (one `fstat`).
        pub fn id(&self) -> io::Result<DirId> {
            let st = fstat(&self.fd)?;
            Ok((st.st_dev, st.st_ino))
        }

        /// Another handle on the same directory (`dup`).
        pub fn try_clone(&self) -> io::Result<Self> {
            Ok(Self {
                fd: rustix::io::fcntl_dupfd_cloexec(&self.fd, 0)?,
            })
        }

        /// `stat` of `rel` relative to this directory (this directory
        /// itself when `rel` is empty), following a final symbolic link
        /// when `follow`: the kernel walks only `rel`, not the whole path.
        pub fn stat_at(&self, rel: &Path, follow: bool) -> io::Result<(Stamp, Kind)> {
            let mut flags = if follow {
                AtFlags::empty()
            } else {
                AtFlags::SYMLINK_NOFOLLOW
            };
            if rel.as_os_str().is_empty() {
                flags |= AtFlags::EMPTY_PATH;
            }
            Ok(stamp_of(&statat(&self.fd, rel, flags)?))
        }

        /// The entries, `.` and `..` left out; an entry whose type the file
        /// system does not report is typed by `fstatat` (not following links).
        pub fn entries(&self, buf: &mut Vec<u8>) -> io::Result<Vec<Entry>> {
            let mut out = Vec::new();
            let mut raw = RawDir::new(&self.fd, buf.spare_capacity_mut());
            while let Some(entry) = raw.next() {
                let entry = entry?;
                let name = entry.file_name().to_bytes();
                if name == b"." || name == b".." {
                    continue;
                }
                let name = OsStr::from_bytes(name);
                let kind = match entry.file_type() {
                    FileType::Directory => Kind::Dir,
                    FileType::RegularFile => Kind::File,
                    FileType::Symlink => Kind::Symlink,
                    FileType::Unknown => match statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                        Ok(st) => kind_of(FileType::from_raw_mode(st.st_mode)),
                        Err(_) => continue,
                    },
                    other => kind_of(other),
                };
                out.push(Entry {
                    name: OsString::from(name),
                    kind,
                    ino: entry.ino(),
                });
            }
            Ok(out)
        }

        /// Whether `name` (a symbolic link) leads to a directory: `Some(true)`,
        /// to something else: `Some(false)`, nowhere: `None`.
        pub fn link_is_dir(&self, name: &OsStr, _path: &Path) -> Option<bool> {
            statat(&self.fd, name, AtFlags::empty())
                .ok()
                .map(|st| FileType::from_raw_mode(st.st_mode) == FileType::Directory)
        }

        /// Reads `name` in this directory as a `SKILL.md`. `regular`: its
        /// entry said regular file, so no `fstat` is needed (the size limit
        /// is enforced while reading).
        /// `buf` is the reused read buffer; the text borrows it.
        pub fn read_skill<'b>(
            &self,
            name: &OsStr,
            _path: &Path,
            regular: bool,
            buf: &'b mut Vec<u8>,
        ) -> Result<&'b str, ReadError> {
            let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY;
            let fd =
                openat(&self.fd, name, flags, Mode::empty()).map_err(|e| open_error(e.into()))?;
            read_open_skill(std::fs::File::from(fd), !regular, buf)
        }
    }

    fn kind_of(t: FileType) -> Kind {
        match t {
            FileType::Directory => Kind::Dir,
            FileType::RegularFile => Kind::File,
            FileType::Symlink => Kind::Symlink,
            _ => Kind::Other,
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::ffi::OsStr;
    use std::io;
    use std::path::{Path, PathBuf};

    use super::{DirId, Entry, Kind, Stamp};
    use crate::skill::ReadError;

    /// An open directory (its path: `std::fs` works by path).
    pub(crate) struct Dir {
        path: PathBuf,
    }

    impl Dir {
        pub fn open(path: &Path) -> io::Result<Self> {
            if std::fs::metadata(path)?.is_dir() {
                Ok(Self { path: path.into() })
            } else {
                Err(io::Error::other("not a directory"))
            }
        }

        pub fn open_child(&self, _name: &OsStr, path: &Path) -> io::Result<Self> {
            Self::open(path)
        }

        pub fn try_clone(&self) -> io::Result<Self> {
            Ok(Self {
                path: self.path.clone(),
            })
        }

        pub fn stat_at(&self, rel: &Path, follow: bool) -> io::Result<(Stamp, Kind)> {
            super::stat_path(&self.path.join(rel), follow)
        }

        pub fn open_nofollow(path: &Path) -> io::Result<Self> {
            if std::fs::symlink_metadata(path)?.is_dir() {
                Ok(Self { path: path.into() })
            } else {
                Err(io::Error::other("not a directory"))
            }
        }

        #[cfg(unix)]
        pub fn id(&self) -> io::Result<DirId> {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(&self.path)?;
            Ok((m.dev(), m.ino()))
        }

        #[cfg(not(unix))]
        pub fn id(&self) -> io::Result<DirId> {
            use std::hash::{Hash, Hasher};
            let real = std::fs::canonicalize(&self.path)?;
            let mut h = std::collections::hash_map::DefaultHasher::new();
            real.hash(&mut h);
            Ok((0, h.finish()))
        }

        pub fn entries(&self, _buf: &mut Vec<u8>) -> io::Result<Vec<Entry>> {
            let mut out = Vec::new();
            for entry in std::fs::read_dir(&self.path)? {
                let Ok(entry) = entry else { continue };
                let Ok(ft) = entry.file_type() else { continue };
                let kind = Kind::of(ft);
                #[cfg(unix)]
                let ino = std::os::unix::fs::DirEntryExt::ino(&entry);
                #[cfg(not(unix))]
                let ino = 0;
                out.push(Entry {
                    name: entry.file_name(),
                    kind,
                    ino,
                });
            }
            Ok(out)
        }

        pub fn link_is_dir(&self, _name: &OsStr, path: &Path) -> Option<bool> {
            super::link_is_dir_at(path)
        }

        pub fn read_skill<'b>(
            &self,
            _name: &OsStr,
            path: &Path,
            regular: bool,
            buf: &'b mut Vec<u8>,
        ) -> Result<&'b str, ReadError> {
            super::read_skill_at(path, regular, buf)
        }
    }
}

pub(crate) use imp::Dir;

/// Opens and reads a `SKILL.md` by path (bundled skills, `read_skill_file`).
pub(crate) fn read_skill_path(path: &Path) -> Result<String, ReadError> {
    let file = std::fs::File::open(path).map_err(open_error)?;
    let mut buf = Vec::new();
    read_open_skill(file, true, &mut buf).map(str::to_string)
}
