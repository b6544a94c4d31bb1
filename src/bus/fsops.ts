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
  readFile(path: string): Promise<Buffer>;
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
  readFile: (p) => fs.promises.readFile(p),
  mkdir: async (p) => void (await fs.promises.mkdir(p, { recursive: true })),
};
