// ESLint for the web client (`npm run lint`, run by `make lint`). See docs/decisions.md,
// "ESLint and the web's boundaries (issue 17)".
//
// Besides typescript-eslint, react-hooks and jsx-a11y, this file holds the web's import
// boundaries, checked with ESLint's own no-restricted-imports on the import specifier:
//   - a feature (src/features/<name>) imports its own folder, src/components, src/lib,
//     src/gen and packages: no other feature, not src/app, and src/test only from a test;
//   - src/components and src/lib import no feature and not src/app (src/test only from a test).
// Modules are named two ways here, "@/…" (tsconfig paths) and relative paths, so both are
// checked: a relative import may not climb out of its feature, which depends on how deep the
// importing file sits, hence one block per feature and depth below.
import { readdirSync } from "node:fs";
import js from "@eslint/js";
import { defineConfig, globalIgnores } from "eslint/config";
import jsxA11y from "eslint-plugin-jsx-a11y";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

const FEATURES = readdirSync(new URL("./src/features", import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
// Folders below a feature's root; a deeper file makes lint fail (see featureBlocks) rather
// than go unchecked.
const MAX_DEPTH = 4;
const TESTS = ["**/*.test.ts", "**/*.test.tsx"];
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const OUTSIDE_FEATURES = {
  regex: "^@/features(/|$)",
  message: "src/components and src/lib import no feature: move what both need into src/lib or src/components.",
};
const APP = {
  regex: "^@/(app|main)(/|$)",
  message: "Only src/app (and the test harness in src/test) imports the app's router and provider.",
};
const TEST_HARNESS = {
  regex: "^@/test(/|$)",
  message: "src/test is the tests' harness: only *.test.ts(x) files import it.",
};

function restrict(patterns) {
  return { "no-restricted-imports": ["error", { patterns }] };
}

// One block per feature and depth (0: a file in the feature's root folder).
function featureBlocks() {
  const blocks = [];
  for (const feature of FEATURES) {
    const other = {
      regex: `^@/features/(?!${escape(feature)}(/|$))`,
      message: `A feature imports no other feature (this is ${feature}): move what both need into src/lib or src/components.`,
    };
    for (let depth = 0; depth <= MAX_DEPTH; depth++) {
      const dir = `src/features/${feature}/${"*/".repeat(depth)}`;
      const climbsOut = {
        regex: `^(\\.\\./){${depth + 1},}`,
        message: `A relative import may not leave its feature (${feature}); use "@/components/…" or "@/lib/…" for shared code.`,
      };
      const files = [`${dir}*.ts`, `${dir}*.tsx`];
      blocks.push(
        { files, ignores: TESTS, rules: restrict([other, climbsOut, APP, TEST_HARNESS]) },
        { files: [`${dir}*.test.ts`, `${dir}*.test.tsx`], rules: restrict([other, climbsOut]) },
      );
    }
    blocks.push({
      files: [`src/features/${feature}/${"*/".repeat(MAX_DEPTH + 1)}**/*.{ts,tsx}`],
      rules: restrict([{ regex: ".", message: `Too deep for eslint.config.js's boundary check: raise MAX_DEPTH.` }]),
    });
  }
  return blocks;
}

const sharedClimbsIntoAppOrFeatures = {
  regex: "^(\\.\\./)+(features|app|main)(/|$)",
  message: "src/components and src/lib import no feature and not src/app.",
};

// no-restricted-imports does not see import(): in features, components and lib a dynamic
// import names a package, src/components, src/lib, src/gen, or a module in its own folder or
// below (none needs more today).
const DYNAMIC_IMPORTS = {
  "no-restricted-syntax": [
    "error",
    {
      selector: "ImportExpression[source.value=/^(@\\/(?!(components|lib|gen)\\/)|\\.\\.\\/)/]",
      message: "A dynamic import here names a package, @/components, @/lib, @/gen, or a module in its own folder or below.",
    },
  ],
};

export default defineConfig([
  globalIgnores(["dist", "src/gen", "test-results"]),

  {
    files: ["**/*.{ts,tsx}"],
    extends: [
      js.configs.recommended,
      tseslint.configs.recommended,
      reactHooks.configs.flat.recommended,
      jsxA11y.flatConfigs.recommended,
    ],
    languageOptions: { globals: globals.browser },
  },
  { files: ["vite.config.ts", "scripts/**/*.ts"], languageOptions: { globals: globals.node } },
  {
    files: ["**/*.{js,mjs}"],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
  // The browser tests run in Node and hand callbacks to the page (page.evaluate and the like).
  { files: ["e2e/**"], languageOptions: { globals: { ...globals.node, ...globals.browser } } },
  // Served as is and run by the browser before the app (see index.html).
  { files: ["public/**/*.js"], languageOptions: { globals: globals.browser } },

  // Boundaries.
  { files: ["src/{features,components,lib}/**/*.{ts,tsx}"], rules: DYNAMIC_IMPORTS },
  ...featureBlocks(),
  {
    files: ["src/components/**/*.{ts,tsx}", "src/lib/**/*.{ts,tsx}"],
    ignores: TESTS,
    rules: restrict([OUTSIDE_FEATURES, APP, TEST_HARNESS, sharedClimbsIntoAppOrFeatures]),
  },
  {
    files: TESTS.flatMap((t) => [`src/components/${t}`, `src/lib/${t}`]),
    rules: restrict([OUTSIDE_FEATURES, sharedClimbsIntoAppOrFeatures]),
  },
]);
