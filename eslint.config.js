// `npm run lint`. typescript-eslint's recommended rules plus the conventions of issue #12.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

// The Node globals the plain .js/.mjs files use (TypeScript files get theirs from @types/node).
const NODE_GLOBALS = Object.fromEntries(
  ["process", "console", "Buffer", "URL", "setTimeout", "clearTimeout", "setInterval", "clearInterval"].map((g) => [g, "readonly"]),
);

export default defineConfig(
  { ignores: ["dist/", "clients/", "node_modules/", "coverage/"] },
  { linterOptions: { reportUnusedDisableDirectives: "error" } },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: NODE_GLOBALS },
    rules: {
      // An empty block needs a comment saying why nothing is done (a catch that ignores an error must say why).
      "no-empty": ["error", { allowEmptyCatch: false }],
      // More than four positional parameters: pass an options object.
      "max-params": "off",
      "@typescript-eslint/max-params": ["error", { max: 5 }],
      eqeqeq: ["error", "always"],
      // Prettier wraps code at 140 but cannot break strings or comments; this catches those.
      "max-len": ["error", { code: 140, ignoreUrls: true, ignoreRegExpLiterals: true }],
      // Same convention as tsc's noUnusedParameters: a leading underscore marks a parameter kept for its position.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  // Text made from values read off foreign files: String() or a template of an object can throw (a JSON key
  // "toString" that is not a function) or say "[object Object]"; src/core/text-of.ts is the one safe way.
  {
    files: ["src/**/*.ts"],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-base-to-string": ["error", { checkUnknown: true }],
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true, allowBoolean: true, allowNullish: true }],
      // A promise returned un-awaited from a try with a finally that awaits rejects with no handler yet: Node exits
      "@typescript-eslint/return-await": ["error", "in-try-catch"],
    },
  },
  // The review console's page script runs in the browser.
  {
    files: ["src/ui/assets/**/*.js"],
    languageOptions: { globals: Object.fromEntries(["document", "location", "EventSource"].map((g) => [g, "readonly"])) },
  },
  { files: ["**/*.cjs"], languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly" } } },
  // The bin is CommonJS (bin/package.json), as the bundle it runs is.
  {
    files: ["bin/**/*.js"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { require: "readonly", exports: "writable", __dirname: "readonly" },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
