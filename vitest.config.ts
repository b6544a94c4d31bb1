import { defineConfig } from "vitest/config";
import { scaled } from "./test/helpers/machine.js";

// Four layers: `unit` runs in-process, alone in seconds (`npm run test:unit`); `property` is in-process too, but its
// hundreds of generated cases take tens of seconds; `it` runs the built dist/ in child processes (test/it and every
// *.process.test.ts); `clients` drives the pinned real reviewer CLIs. Every test file is in exactly one. The process
// layers' budgets scale with the machine factor, as their helpers' deadlines do.
const PROPERTY = ["test/**/*.property.test.ts"];
const IT = ["test/it/**/*.test.ts", "test/**/*.process.test.ts"];
const CLIENTS = ["test/clients/**/*.test.ts"];

export default defineConfig({
  test: {
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [...PROPERTY, ...IT, ...CLIENTS] } },
      { extends: true, test: { name: "property", include: PROPERTY } },
      { extends: true, test: { name: "it", include: IT, testTimeout: scaled(60_000), hookTimeout: scaled(60_000) } },
      { extends: true, test: { name: "clients", include: CLIENTS, testTimeout: scaled(60_000), hookTimeout: scaled(60_000) } },
    ],
  },
});
