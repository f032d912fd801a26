import { fileURLToPath } from "node:url";
import tailwindcss from "@tailwindcss/vite";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";
import "./scripts/node20-polyfills.ts";

// The BFF serves web/dist and the Connect handlers on one origin. In development Vite serves
// the client and forwards every Connect call (/thumela.<package>.<Service>/<Method>) to the BFF.
const BFF_URL = "http://127.0.0.1:8080";

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) },
  },
  server: {
    proxy: {
      "^/thumela\\.": { target: BFF_URL },
      "^/api/": { target: BFF_URL },
    },
  },
  build: {
    outDir: "dist",
    // No source maps in the build the BFF serves: they would hand anyone the client's whole
    // source, comments included. Vite's dev server still maps everything for development.
    sourcemap: false,
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    css: false,
    // One worker per core. Vitest's default for `vitest run` is one fewer than the cores, which
    // on the two-core CI machine ran the 65 files one at a time (322 s of CI's 22 minutes) while
    // the main process sat mostly idle.
    maxWorkers: "100%",
  },
});
