import { resolve } from 'node:path'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'electron-vite'

/**
 * Builds every part the Electron host loads:
 * - out/main/index.js (main) and out/main/runtime.js (the runtime process);
 * - out/preload/workbench.cjs and out/preload/protected.cjs: sandboxed
 *   preloads, so each is one CommonJS file with no shared chunks and only
 *   `electron` left external;
 * - out/renderer/workbench/index.html and out/renderer/consent/index.html,
 *   with relative asset paths so they load from a custom scheme's root.
 * The CDP host's classic-script preloads are built by
 * scripts/build-cdp-preloads.ts (electron-vite only emits CJS or ESM).
 *
 * Two flavours, fixed at build time in main as `__ASSENT_DEVELOPMENT_BUILD__`
 * (src/main/index.ts). A development build (DevTools, debugging switches
 * accepted, the smoke port compiled in, ASSENT_SCOPED_ROOTS honoured) is
 * opt-in: only `--mode development`, which `npm run build`, `npm start` and
 * `npm run dev` (electron-vite's dev default) ask for, and with them the
 * tests and the smoke scenario. Any other mode, a plain `electron-vite
 * build` included, makes a release build: a build nobody marked is never the
 * weaker one. `npm run package` builds `--mode release`, and
 * scripts/release-build-check.ts refuses to package anything else.
 */
const fromRoot = (path: string) => resolve(import.meta.dirname, path)

export const DEVELOPMENT_MODE = 'development'

export default defineConfig(({ mode }) => ({
  main: {
    define: {
      __ASSENT_DEVELOPMENT_BUILD__: JSON.stringify(mode === DEVELOPMENT_MODE),
    },
    build: {
      outDir: fromRoot('out/main'),
      // Bundled, not loaded from node_modules at start: resolving and
      // compiling zod's many modules was a third of the runtime's start, and
      // only what is used is kept (docs/benchmarks.md, "Where the start's
      // time goes"). The MCP SDK stays external: the runtime loads it with
      // its first MCP connection; keytar is native and main's alone.
      externalizeDeps: { exclude: ['zod', 'canonicalize', 'diff'] },
      rolldownOptions: {
        input: {
          index: fromRoot('src/main/index.ts'),
          runtime: fromRoot('src/runtime/main.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: fromRoot('out/preload'),
      isolatedEntries: true,
      // A sandboxed preload cannot require anything but `electron` (and a few
      // polyfilled modules), so zod and our own code are bundled in.
      externalizeDeps: false,
      rolldownOptions: {
        input: {
          workbench: fromRoot('src/preload-workbench/index.ts'),
          protected: fromRoot('src/preload-protected/index.ts'),
        },
        external: ['electron'],
        output: {
          format: 'cjs',
          entryFileNames: '[name].cjs',
        },
      },
    },
  },
  renderer: {
    root: fromRoot('src/renderer'),
    base: './',
    plugins: [react()],
    build: {
      outDir: fromRoot('out/renderer'),
      // Minified in both modes: the workbench's script is read, compiled
      // and (on the CDP host) carried over the DevTools connection at
      // every start, 0.56 MB instead of 1.18 (docs/benchmarks-history.md,
      // "2026-12-02 night: the first room").
      minify: true,
      rolldownOptions: {
        input: {
          workbench: fromRoot('src/renderer/workbench/index.html'),
          consent: fromRoot('src/renderer/consent/index.html'),
        },
        output: {
          // The consent page's stylesheet stays beside it (consent/), so the
          // protected session's request filter can allow that one folder.
          assetFileNames: (asset) =>
            asset.originalFileNames.some((file) => file.startsWith('consent/'))
              ? 'consent/[name]-[hash][extname]'
              : 'assets/[name]-[hash][extname]',
        },
      },
    },
  },
}))
