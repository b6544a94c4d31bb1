// The syscalls the store uses, behind one object so tests can fail each in turn.
import * as fs from "node:fs";

export interface FsOps {
  open(path: string, flags: string, mode?: number): number;
  write(fd: number, bytes: Uint8Array): void;
  fsync(fd: number): void;
  close(fd: number): void;
  link(existing: string, target: string): void;
  unlink(path: string): void;
  readFile(path: string): Buffer;
  mkdir(path: string): void;
}

export const realFs: FsOps = {
  open: (p, flags, mode) => fs.openSync(p, flags, mode),
  write: (fd, bytes) => {
    let offset = 0;
    while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
  },
  fsync: (fd) => fs.fsyncSync(fd),
  close: (fd) => fs.closeSync(fd),
  link: (a, b) => fs.linkSync(a, b),
  unlink: (p) => fs.unlinkSync(p),
  readFile: (p) => fs.readFileSync(p),
  mkdir: (p) => void fs.mkdirSync(p, { recursive: true }),
};
