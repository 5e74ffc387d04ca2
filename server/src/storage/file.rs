//! The file journal: the durable record log of `--data DIR`: coordinator records, committed offsets, created
//! topics and partition end offsets, appended to one file, `DIR/kwire-server.log`, and replayed on
//! start. The directory is locked (`DIR/kwire-server.lock`, an exclusive advisory lock held while
//! the log is open), so a second server on the same directory refuses to start.
//!
//! # Format
//!
//! All integers are big-endian. The file starts with a 12-byte header: the ASCII magic
//! `KWIRELOG` and the format version, `u32` 1. Entries follow, back to back:
//!
//! ```text
//! u32  N        length of the payload that follows the CRC
//! u32  crc      CRC-32C (Castagnoli) of the N payload bytes
//! payload (N bytes):
//!   i16  type   record type (below)
//!   i32  K      key length
//!   K bytes     key, encoded with kwire's generated codec at version 0
//!   i8   flag   1: a value follows; 0: tombstone (nothing follows)
//!   N-7-K bytes value, encoded at version 0 (only when flag = 1)
//! ```
//!
//! Record types are the generated `CoordinatorRecordType` numbers (see [`super::entry`]): the
//! coordinator's records, and kwire-server's committed offsets (`KwireCommittedOffsetKey`),
//! topics (`KwireTopicKey`) and partition end offsets (`KwirePartitionEndKey`: where a
//! partition's offsets continue after a restart; the records themselves are not kept). A
//! partition-end entry whose topic is the empty string
//! ([`PRODUCER_ID_BLOCK_TOPIC`](super::entry::PRODUCER_ID_BLOCK_TOPIC), never a topic's name) and
//! partition -1 holds instead the end of the last block of producer ids reserved for
//! InitProducerId (the producers service): after a restart, ids continue there.
//!
//! # Writes
//!
//! Each request's entries are written with one `write` call before the response is sent (no
//! fsync: the data survives a crash of the process, not of the machine). The log remembers the
//! length of the file up to its last whole entry; a failed write (e.g. ENOSPC) may leave part of
//! an entry after it, so the file is cut back to that length at once and, if that fails too,
//! before any later append: until the cut succeeds every append fails without writing, so no
//! entry ever follows a partial one.
//!
//! # Replay
//!
//! Only the end of the file can be torn: a last entry with fewer bytes left than its header
//! needs, or than its length says (unless a whole entry can be found after it, which shows that
//! the length itself is damaged), a last entry reaching exactly the end of the file whose CRC does
//! not match, or a tail of zero bytes. Such a tail is logged, ignored and cut off the file, so
//! that new entries follow the last whole one. Anything else that does not check is corruption
//! ([`LogError::Corrupt`], naming the entry's byte offset): a CRC mismatch or an impossible length
//! with more data after it. The server then refuses to start and leaves the file as it is, since
//! cutting it there would destroy every later entry. An entry of an unknown type is skipped with a
//! warning; an entry whose CRC matches but whose key or value does not decode is an error (the
//! file is not one this version can read).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::entry::Entry;
use super::error::LogError;
#[cfg(test)]
use super::journal::Faults;
use super::journal::Journal;
use super::replay::{parse, Replay, FORMAT_VERSION, HEADER_LEN, MAGIC};

/// The file's name inside the data directory.
pub const FILE_NAME: &str = "kwire-server.log";
/// The lock file's name inside the data directory.
pub const LOCK_FILE_NAME: &str = "kwire-server.lock";

/// Takes the exclusive lock of `dir` (see the module docs) and writes our pid into the lock file.
fn lock_dir(dir: &Path) -> Result<File, LogError> {
    let path = dir.join(LOCK_FILE_NAME);
    let io = |source| LogError::Io {
        path: path.clone(),
        source,
    };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    match fs4::FileExt::try_lock(&file) {
        Ok(()) => {}
        Err(fs4::TryLockError::WouldBlock) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let holder = match text.trim().parse::<u32>() {
                Ok(pid) => format!(" (pid {pid})"),
                Err(_) => String::new(),
            };
            return Err(LogError::Locked { path, holder });
        }
        Err(fs4::TryLockError::Error(e)) => return Err(io(e)),
    }
    file.set_len(0).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    writeln!(file, "{}", std::process::id()).map_err(io)?;
    Ok(file)
}

/// The open log: appends go after the last whole entry.
#[derive(Debug)]
pub struct FileJournal {
    path: PathBuf,
    file: File,
    /// Holds the data directory's lock while the log is open.
    _lock: File,
    buf: Vec<u8>,
    /// Length of the file up to the end of its last whole entry.
    len: u64,
    /// A failed write may have left bytes after `len`: cut them before the next append.
    dirty: bool,
    #[cfg(test)]
    pub(crate) faults: Faults,
}

impl FileJournal {
    /// Locks `DIR`, opens (or creates) `DIR/kwire-server.log`, replays it, cuts off a torn tail
    /// and returns the log ready for appends with what it held.
    ///
    /// # Errors
    /// [`LogError::Locked`] when another process holds the directory, I/O errors, and
    /// [`parse`]'s format and corruption errors (the file is then left untouched).
    pub fn open(dir: &Path) -> Result<(FileJournal, Replay), LogError> {
        let path = dir.join(FILE_NAME);
        let io = |source| LogError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(|source| LogError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let lock = lock_dir(dir)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        let mut data = Vec::new();
        file.read_to_end(&mut data).map_err(io)?;
        let replay = parse(&path, &data)?;
        let mut len = replay.valid_len;
        if replay.valid_len < HEADER_LEN as u64 {
            file.set_len(0).map_err(io)?;
            file.seek(SeekFrom::Start(0)).map_err(io)?;
            let mut header = MAGIC.to_vec();
            header.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
            file.write_all(&header).map_err(io)?;
            len = HEADER_LEN as u64;
        } else if replay.valid_len < data.len() as u64 {
            file.set_len(replay.valid_len).map_err(io)?;
        }
        file.seek(SeekFrom::Start(len)).map_err(io)?;
        Ok((
            FileJournal {
                path,
                file,
                _lock: lock,
                buf: Vec::new(),
                len,
                dirty: false,
                #[cfg(test)]
                faults: Faults::default(),
            },
            replay,
        ))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Length of the file up to the end of its last whole entry.
    #[cfg(test)]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Cuts whatever a failed write left after the last whole entry.
    fn repair(&mut self) -> Result<(), LogError> {
        let len = self.len;
        #[cfg(test)]
        let injected = if self.faults.repairs > 0 {
            self.faults.repairs -= 1;
            true
        } else {
            false
        };
        #[cfg(not(test))]
        let injected = false;
        let r = if injected {
            Err(std::io::Error::other("injected failure"))
        } else {
            self.file
                .set_len(len)
                .and_then(|_| self.file.seek(SeekFrom::Start(len)).map(|_| ()))
        };
        match r {
            Ok(()) => {
                self.dirty = false;
                Ok(())
            }
            Err(source) => Err(LogError::Repair {
                path: self.path.clone(),
                len,
                source,
            }),
        }
    }

    fn write_buf(&mut self) -> std::io::Result<()> {
        #[cfg(test)]
        if self.faults.writes > 0 {
            self.faults.writes -= 1;
            let half = self.buf.len() / 2;
            self.file.write_all(&self.buf[..half])?;
            return Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "injected ENOSPC",
            ));
        }
        self.file.write_all(&self.buf)?;
        self.file.flush()
    }

    /// Appends `entries` with one write. After a failed write the file is cut back to its last
    /// whole entry (now, or before the next append if that fails too).
    ///
    /// # Errors
    /// An encode error (nothing is written), an I/O error (the entries are not in the log), or
    /// [`LogError::Repair`] when an earlier failure is still not cut off (nothing is written).
    pub fn append(&mut self, entries: &[Entry]) -> Result<(), LogError> {
        if entries.is_empty() {
            return Ok(());
        }
        if self.dirty {
            self.repair()?;
        }
        self.buf.clear();
        for e in entries {
            e.encode_into(&mut self.buf)?;
        }
        let r = self.write_buf();
        let written = self.buf.len() as u64;
        if self.buf.capacity() > 1 << 20 {
            self.buf = Vec::new();
        }
        match r {
            Ok(()) => {
                self.len += written;
                Ok(())
            }
            Err(source) => {
                self.dirty = true;
                if let Err(e) = self.repair() {
                    tracing::error!(error = %e, "DURABLE LOG DAMAGED: a failed write cannot be cut off; writes are refused until it can");
                }
                Err(LogError::Io {
                    path: self.path.clone(),
                    source,
                })
            }
        }
    }
}

impl Journal for FileJournal {
    fn append(&mut self, entries: &[Entry]) -> Result<(), LogError> {
        FileJournal::append(self, entries)
    }

    fn is_durable(&self) -> bool {
        true
    }

    #[cfg(test)]
    fn faults(&mut self) -> Option<&mut Faults> {
        Some(&mut self.faults)
    }

    #[cfg(test)]
    fn whole_len(&self) -> Option<u64> {
        Some(self.len)
    }
}
