/**
 * Builds the preloads the CDP host injects with
 * `Page.addScriptToEvaluateOnNewDocument`: each must be one self-contained
 * classic script (an IIFE with no import and no require), which electron-vite
 * cannot emit. Output: out/cdp/<name>.js. Run by `npm run build` after
 * `electron-vite build`.
 */
import { rm } from 'node:fs/promises'
import { resolve } from 'node:path'
import { build } from 'vite'

const root = resolve(import.meta.dirname, '..')
const outDir = resolve(root, 'out/cdp')

/** name in out/cdp → entry. */
const CDP_PRELOADS: Readonly<Record<string, string>> = {
  'preload-protected': 'src/preload-protected/cdp.ts',
  'preload-workbench-isolated': 'src/preload-workbench/cdp-isolated.ts',
  'preload-workbench-main': 'src/preload-workbench/cdp-main-world.ts',
}

await rm(outDir, { recursive: true, force: true })
for (const [name, entry] of Object.entries(CDP_PRELOADS)) {
  await build({
    root,
    configFile: false,
    logLevel: 'warn',
    publicDir: false,
    build: {
      outDir,
      emptyOutDir: false,
      target: 'chrome120',
      minify: false,
      sourcemap: false,
      copyPublicDir: false,
      reportCompressedSize: false,
      lib: {
        entry: resolve(root, entry),
        formats: ['iife'],
        name: 'assentCdpPreload',
        fileName: () => `${name}.js`,
      },
      rolldownOptions: {
        // The IIFE must not leave a global behind in the isolated world.
        output: { name: undefined, exports: 'none' },
      },
    },
  })
}
console.log(
  `CDP preloads: ${Object.keys(CDP_PRELOADS)
    .map((name) => `out/cdp/${name}.js`)
    .join(', ')}`,
)
