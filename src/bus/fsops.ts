// The syscalls the store uses, behind one object so tests can fail each in turn. Asynchronous: an fsync runs on
// libuv's thread pool, so a worker keeps several gates in flight instead of blocking its event loop on the disk.
import * as fs from "node:fs";
import { promisify } from "node:util";

export interface FsOps {
  open(path: string, flags: string, mode?: number): Promise<number>;
  write(fd: number, bytes: Uint8Array): Promise<void>;
  fsync(fd: number): Promise<void>;
  close(fd: number): Promise<void>;
  link(existing: string, target: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** The bytes of a regular file of at most `max` bytes, or null for anything else there (a FIFO never blocks it). */
  readRegular(path: string, max: number): Promise<Buffer | null>;
  mkdir(path: string): Promise<void>;
}

const open = promisify(fs.open);
const fsync = promisify(fs.fsync);
const close = promisify(fs.close);

export const realFs: FsOps = {
  open: (p, flags, mode) => open(p, flags, mode),
  write: async (fd, bytes) => {
    let offset = 0;
    while (offset < bytes.length)
      offset += await new Promise<number>((resolve, reject) =>
        fs.write(fd, bytes, offset, bytes.length - offset, null, (error, n) => (error ? reject(error) : resolve(n))),
      );
  },
  fsync: (fd) => fsync(fd),
  close: (fd) => close(fd),
  link: (a, b) => fs.promises.link(a, b),
  unlink: (p) => fs.promises.unlink(p),
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
  mkdir: async (p) => void (await fs.promises.mkdir(p, { recursive: true })),
};
