import { dirname, relative, resolve, sep } from 'node:path'
import type { Rule } from 'eslint'

/**
 * Which folder may import which: the trust boundaries of
 * docs/architecture.md §9, checked on every import so that crossing one
 * fails `npm run lint` instead of waiting for a reviewer to notice.
 *
 * A file belongs to the layer whose folder is the longest prefix of its path.
 * Relative imports are resolved to a path and must land in the file's own
 * layer or one it `may` import; package imports must not be one the layer
 * `refuses` (Electron in the host-agnostic core, Node built-ins in the pages).
 */
export interface Layer {
  /** A folder (ending in `/`) or a single file, relative to the project root. */
  path: string
  /** Folders or files this layer may import besides its own. */
  may: readonly string[]
  /** Package specifiers this layer must never import. */
  refuses?: readonly RegExp[]
  /** Why, shown with every violation. */
  why: string
}

const NODE_BUILT_IN = /^node:/
const ELECTRON = /^electron$/
const BROWSER_DRIVER = /^playwright(-core)?$/
const NATIVE_KEYCHAIN = /^keytar$/
const REACT = /^react(-dom)?(\/|$)/

const NOT_IN_RUNTIME = [ELECTRON, BROWSER_DRIVER, NATIVE_KEYCHAIN, REACT]
const RUNTIME_DOMAIN = 'src/runtime/domain/'
const RUNTIME_PORTS = 'src/runtime/ports/'
/** What a runtime service may build on: never the store, the server or the
 *  wiring, which are the adapters around it. */
const RUNTIME_SERVICE = [
  'src/contracts/',
  RUNTIME_DOMAIN,
  RUNTIME_PORTS,
  'src/runtime/events/',
  'src/runtime/gate/',
  'src/runtime/policy/',
  'src/runtime/tools/',
]

export const LAYERS: readonly Layer[] = [
  {
    path: 'src/contracts/',
    may: [],
    refuses: [NODE_BUILT_IN, ELECTRON, BROWSER_DRIVER, NATIVE_KEYCHAIN, REACT],
    why: 'contracts are parsed by every process and import nothing of any of them',
  },
  {
    path: 'src/common/',
    may: ['src/contracts/'],
    refuses: [NODE_BUILT_IN, ELECTRON, BROWSER_DRIVER, NATIVE_KEYCHAIN],
    why: 'common is what the UI sides share; it runs in pages and sandboxed preloads',
  },
  {
    path: 'src/loopback/',
    may: [],
    refuses: [ELECTRON, BROWSER_DRIVER, NATIVE_KEYCHAIN, REACT],
    why: 'the loopback HTTP client is how main and the MCP gateway reach the runtime; it knows nothing of either',
  },
  {
    path: 'src/consent/',
    may: ['src/contracts/'],
    refuses: [ELECTRON, BROWSER_DRIVER, REACT],
    why: 'consent tokens belong to the trusted processes only (main mints, the runtime verifies)',
  },
  {
    path: 'src/runtime/domain/',
    may: ['src/contracts/'],
    refuses: [/^node:(?!crypto$)/, ELECTRON, NATIVE_KEYCHAIN],
    why: 'the domain is pure: records and transitions, no I/O',
  },
  {
    path: 'src/runtime/',
    may: ['src/contracts/', 'src/consent/'],
    refuses: [ELECTRON, BROWSER_DRIVER, NATIVE_KEYCHAIN, REACT],
    why: 'the runtime is its own process: it reaches main over IPC and HTTP, never by import, and loads no native module; only its wiring (runtime-app.ts and its runtime-*.ts parts, main.ts) sees all of it',
  },
  // Inside the runtime (docs/architecture.md §9): services depend on ports,
  // the store implements them, and only the wiring knows both.
  {
    path: 'src/runtime/ports/',
    may: ['src/contracts/', RUNTIME_DOMAIN],
    refuses: [NODE_BUILT_IN, ...NOT_IN_RUNTIME],
    why: 'ports are interfaces over the contracts and the domain: they name what a service needs, never how it is done',
  },
  {
    path: 'src/runtime/store/',
    may: ['src/contracts/', RUNTIME_DOMAIN, RUNTIME_PORTS],
    refuses: NOT_IN_RUNTIME,
    why: 'the store implements the ports over SQLite; it knows no service, no policy and no transport',
  },
  {
    path: 'src/runtime/concurrency/',
    may: [],
    refuses: NOT_IN_RUNTIME,
    why: 'concurrency helpers are leaves every service may share',
  },
  {
    path: 'src/runtime/child-processes/',
    may: [],
    refuses: NOT_IN_RUNTIME,
    why: 'how the runtime hands a child process only what it means to: leaves the tools, the external agents and the MCP servers share',
  },
  {
    path: 'src/runtime/config/',
    may: ['src/contracts/'],
    refuses: NOT_IN_RUNTIME,
    why: 'configuration files (mcp.json, agents.json) are parsed strictly and kept as last good; they know no service',
  },
  {
    path: 'src/runtime/external-agents/',
    may: ['src/contracts/', RUNTIME_DOMAIN, 'src/runtime/config/', 'src/runtime/child-processes/'],
    refuses: NOT_IN_RUNTIME,
    why: "an external agent's process and protocol: it asks the person through its asker port and never reaches the gate, the store or another service itself",
  },
  {
    path: 'src/runtime/external-turns/',
    may: [
      ...RUNTIME_SERVICE,
      'src/runtime/concurrency/',
      'src/runtime/config/',
      'src/runtime/external-agents/',
    ],
    refuses: NOT_IN_RUNTIME,
    why: "an external agent's turns: its requests are answered through the gate's requester and its work lands in the timeline through ports (never agent/, mcp/, rooms/, the store or the server)",
  },
  {
    path: 'src/runtime/events/',
    may: ['src/contracts/'],
    refuses: NOT_IN_RUNTIME,
    why: 'the event bus carries contract events and knows nothing of who emits them',
  },
  {
    path: 'src/runtime/tools/',
    may: ['src/contracts/', RUNTIME_DOMAIN, 'src/runtime/child-processes/'],
    refuses: NOT_IN_RUNTIME,
    why: 'tools act on what the sandbox resolved; they decide nothing and reach no service',
  },
  {
    path: 'src/runtime/policy/',
    may: ['src/contracts/', RUNTIME_DOMAIN, 'src/runtime/tools/'],
    refuses: NOT_IN_RUNTIME,
    why: 'policy is pure decisions over the domain and tool descriptions: no store, no service',
  },
  {
    path: 'src/runtime/sandbox/',
    may: ['src/contracts/', RUNTIME_DOMAIN, 'src/runtime/policy/', 'src/runtime/tools/'],
    refuses: NOT_IN_RUNTIME,
    why: "the command sandbox turns one policy value into bubblewrap's or Seatbelt's arguments; it implements the tools' command launcher and reaches no service",
  },
  {
    path: 'src/runtime/gate/',
    may: [
      'src/contracts/',
      RUNTIME_DOMAIN,
      RUNTIME_PORTS,
      'src/runtime/events/',
      'src/runtime/policy/',
    ],
    refuses: NOT_IN_RUNTIME,
    why: 'the gate decides approvals through the store ports; every asker comes to it, it goes to none of them',
  },
  {
    path: 'src/runtime/input/',
    may: ['src/contracts/', RUNTIME_DOMAIN, RUNTIME_PORTS, 'src/runtime/events/'],
    refuses: NOT_IN_RUNTIME,
    why: 'questions and forms live through the store ports and the event bus',
  },
  {
    path: 'src/runtime/recovery/',
    may: ['src/contracts/', RUNTIME_DOMAIN, RUNTIME_PORTS],
    refuses: NOT_IN_RUNTIME,
    why: 'crash recovery settles what the store holds through its ports, and is handed the rest',
  },
  {
    path: 'src/runtime/rollback/',
    may: ['src/contracts/', RUNTIME_DOMAIN, RUNTIME_PORTS, 'src/runtime/events/'],
    refuses: NOT_IN_RUNTIME,
    why: "rollback detection compares the store's counter with main's anchor through ports, and reaches main only over the runtime's IPC channel",
  },
  {
    path: 'src/runtime/agent/',
    may: [...RUNTIME_SERVICE, 'src/runtime/input/'],
    refuses: NOT_IN_RUNTIME,
    why: 'the agent runner asks through the gate and reaches MCP and rooms only through ports (never mcp/ or rooms/, which would close the loop)',
  },
  {
    path: 'src/runtime/mcp/',
    may: [
      ...RUNTIME_SERVICE,
      'src/runtime/concurrency/',
      'src/runtime/config/',
      'src/runtime/child-processes/',
    ],
    refuses: NOT_IN_RUNTIME,
    why: 'MCP calls ask through the gate and reach rooms only through ports (never rooms/ or agent/, which would close the loop)',
  },
  {
    path: 'src/runtime/rooms/',
    may: [...RUNTIME_SERVICE, 'src/runtime/concurrency/'],
    refuses: NOT_IN_RUNTIME,
    why: 'rooms and turns hand turns to a runner port (never agent/ or mcp/)',
  },
  {
    path: 'src/runtime/approver/',
    may: RUNTIME_SERVICE,
    refuses: NOT_IN_RUNTIME,
    why: "a room's approver webhook: settings through its store port, decisions only as the requester's delegate; it reaches no other service",
  },
  {
    path: 'src/runtime/server/',
    may: [
      'src/contracts/',
      'src/consent/',
      RUNTIME_DOMAIN,
      RUNTIME_PORTS,
      'src/runtime/approver/',
      'src/runtime/events/',
      'src/runtime/gate/',
      'src/runtime/input/',
      'src/runtime/mcp/',
      'src/runtime/rooms/',
    ],
    refuses: NOT_IN_RUNTIME,
    why: 'the HTTP edge parses requests, calls services and alone turns error codes into statuses; no service imports it',
  },
  {
    path: 'src/main/core/',
    may: ['src/contracts/', 'src/consent/', 'src/common/', 'src/loopback/'],
    refuses: [ELECTRON, BROWSER_DRIVER, REACT],
    why: "main's core is host-agnostic: hosts plug in through its ports, and the runtime is reached over HTTP",
  },
  {
    path: 'src/main/electron/',
    may: ['src/contracts/', 'src/consent/', 'src/common/', 'src/main/core/'],
    refuses: [BROWSER_DRIVER, REACT],
    why: 'the Electron host builds on the core and nothing of the other host',
  },
  {
    path: 'src/main/cdp/',
    may: ['src/contracts/', 'src/consent/', 'src/common/', 'src/main/core/'],
    refuses: [ELECTRON, REACT],
    why: 'the CDP host builds on the core and nothing of the other host',
  },
  {
    path: 'src/main/index.ts',
    may: ['src/contracts/', 'src/consent/', 'src/common/', 'src/main/core/', 'src/main/electron/'],
    refuses: [BROWSER_DRIVER],
    why: "the Electron app's entry wires the Electron host to the core",
  },
  {
    path: 'src/preload-workbench/',
    may: ['src/contracts/', 'src/common/'],
    refuses: [NODE_BUILT_IN, NATIVE_KEYCHAIN, BROWSER_DRIVER, REACT],
    why: "a sandboxed preload holds no secret and reaches main only over the workbench's channels",
  },
  {
    path: 'src/preload-protected/',
    may: ['src/contracts/', 'src/common/'],
    refuses: [NODE_BUILT_IN, NATIVE_KEYCHAIN, BROWSER_DRIVER, REACT],
    why: 'the protected preload only renders and reports trusted clicks',
  },
  {
    path: 'src/renderer/',
    may: ['src/contracts/', 'src/common/'],
    refuses: [NODE_BUILT_IN, ELECTRON, NATIVE_KEYCHAIN, BROWSER_DRIVER],
    why: 'pages are untrusted: they reach main through their bridge, never by import',
  },
  {
    path: 'src/cli/',
    may: ['src/contracts/', 'src/consent/', 'src/common/', 'src/main/core/', 'src/runtime/'],
    refuses: [ELECTRON, REACT],
    why: "the `assent` command starts the runtime as main does and reads a stopped runtime's store",
  },
  {
    path: 'src/gateway/',
    may: ['src/contracts/', 'src/runtime/mcp/', 'src/loopback/'],
    refuses: [ELECTRON, REACT, NATIVE_KEYCHAIN],
    why: "the MCP gateway is its own process: it shares the runtime's MCP client code and reaches the runtime over HTTP",
  },
  {
    path: 'scripts/',
    may: ['src/'],
    why: 'scripts build, audit and drive the product',
  },
  {
    path: 'scripts/smoke/',
    may: ['scripts/', 'src/contracts/', 'src/consent/', 'src/common/', 'src/main/'],
    why: "the smoke drives the product from outside, as a person and a host do: it starts a host, reaches the runtime over HTTP and the `assent` command, and never imports the runtime's internals (what it checks must not rest on the code it checks)",
  },
]

const TEST_FILE = /\.test\.tsx?$/
const TEST_SUPPORT = /(^|\/)test-support\//

/** The layer a project-relative path belongs to: the longest matching one,
 *  or with `outermost` the shortest (the process it runs in). */
export function layerOf(path: string, outermost = false): Layer | undefined {
  let best: Layer | undefined
  for (const layer of LAYERS) {
    const matches = layer.path.endsWith('/') ? path.startsWith(layer.path) : path === layer.path
    const better = outermost
      ? layer.path.length < (best?.path.length ?? Infinity)
      : layer.path.length > (best?.path.length ?? -1)
    if (matches && better) best = layer
  }
  return best
}

/** A test file, or a cross-process helper in tests/: free to import what
 *  it tests. A `test-support/` helper is not: it serves the tests of the
 *  process it sits in and is held to that process's layer (a runtime helper
 *  may wire the real store for the gate's tests, but never reach main), so a
 *  helper that ties processes together belongs in tests/support/. */
function isTestCode(path: string): boolean {
  return TEST_FILE.test(path) || path.startsWith('tests/')
}

/**
 * Why `from` may not import `target` (both project-relative), or undefined
 * when it may. Test code may import what it tests; product code never
 * imports test code, and nothing under src/ imports scripts/ or tests/.
 */
export function refusalFor(from: string, target: string): string | undefined {
  if (isTestCode(from)) return undefined
  const helper = TEST_SUPPORT.test(from)
  if (!helper && (TEST_SUPPORT.test(target) || target.startsWith('tests/'))) {
    return `${from} is product code and may not import test code (${target})`
  }
  if (helper && (TEST_SUPPORT.test(target) || target.startsWith('tests/'))) return undefined
  if (from.startsWith('src/') && target.startsWith('scripts/')) {
    return `${from} is product code and may not import scripts/ (${target})`
  }
  const layer = layerOf(from, helper)
  if (!layer) return undefined
  const own = layer.path.endsWith('/') ? target.startsWith(layer.path) : target === layer.path
  if (own || layer.may.some((allowed) => target.startsWith(allowed))) return undefined
  return `${layer.path} may not import ${target}: ${layer.why}`
}

/** Why `from` may not import the package `specifier`, or undefined. */
export function packageRefusalFor(from: string, specifier: string): string | undefined {
  // A helper runs in the test runner, never in the process it serves, so
  // which packages it loads is not that process's boundary.
  if (isTestCode(from) || TEST_SUPPORT.test(from)) return undefined
  const layer = layerOf(from)
  const refused = layer?.refuses?.find((pattern) => pattern.test(specifier))
  if (!layer || !refused) return undefined
  return `${layer.path} may not import '${specifier}': ${layer.why}`
}

function toProjectPath(root: string, absolute: string): string {
  return relative(root, absolute).split(sep).join('/')
}

export const importLayersRule: Rule.RuleModule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keeps imports inside the trust boundaries of docs/architecture.md §9' },
    schema: [],
  },
  create(context) {
    const root = context.cwd
    const file = toProjectPath(root, context.physicalFilename)
    if (file.startsWith('..')) return {}
    const check = (node: Rule.Node, specifier: unknown): void => {
      if (typeof specifier !== 'string') return
      const reason = specifier.startsWith('.')
        ? refusalFor(
            file,
            toProjectPath(root, resolve(dirname(context.physicalFilename), specifier)),
          )
        : packageRefusalFor(file, specifier)
      if (reason) context.report({ node, message: reason })
    }
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => check(node, node.source?.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) =>
        check(node, node.source.type === 'Literal' ? node.source.value : undefined),
    }
  },
}
