// The syscalls the store uses, behind one object so tests can fail each in turn. Only fsync, the one that waits on
// the disk, runs on libuv's thread pool, so a worker keeps several gates in flight instead of blocking its event loop.
// The rest are made synchronously: each answers from the page cache in microseconds, and a trip through the thread
// pool cost several times the syscall in CPU (bench/README.md, "Synchronous metadata calls").
import * as fs from "node:fs";
import { promisify } from "node:util";
import { makeDirsBelow } from "./make-dirs.js";

export interface FsOps {
  open(path: string, flags: string, mode?: number): Promise<number>;
  write(fd: number, bytes: Uint8Array): Promise<void>;
  fsync(fd: number): Promise<void>;
  close(fd: number): Promise<void>;
  link(existing: string, target: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** The bytes of a regular file of at most `max` bytes, or null for anything else there (a FIFO never blocks it). */
  readRegular(path: string, max: number): Promise<Buffer | null>;
  /** Make a directory and its missing parents strictly below `floor`, which must exist (make-dirs.ts). */
  mkdir(path: string, floor: string): Promise<void>;
}

const fsync = promisify(fs.fsync);

export const realFs: FsOps = {
  open: async (p, flags, mode) => fs.openSync(p, flags, mode),
  write: async (fd, bytes) => {
    for (let offset = 0; offset < bytes.length;) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
  },
  fsync: (fd) => fsync(fd),
  close: async (fd) => fs.closeSync(fd),
  link: async (a, b) => fs.linkSync(a, b),
  unlink: async (p) => fs.unlinkSync(p),
  readRegular: async (p, max) => {
    const file = await fs.promises.open(p, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
    try {
      if (!(await file.stat()).isFile()) return null;
      // read at most one byte past the bound: a file that grows while it is read is never read without end
      const buf = Buffer.allocUnsafe(max + 1);
      let used = 0;
      for (let n = -1; n !== 0 && used <= max; used += n) n = (await file.read(buf, used, buf.length - used, used)).bytesRead;
      return used <= max ? buf.subarray(0, used) : null;
    } finally {
      await file.close();
    }
  },
  mkdir: async (p, floor) => makeDirsBelow(floor, p),
};
