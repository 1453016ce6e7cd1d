import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { RuleTester } from 'eslint'
import tseslint from 'typescript-eslint'
import { describe, expect, it } from 'vitest'
import {
  LAYERS,
  importLayersRule,
  layerOf,
  packageRefusalFor,
  refusalFor,
} from './import-layers.ts'

RuleTester.describe = describe
RuleTester.it = it

// The rule reads paths relative to ESLint's working directory, as in `npm run lint`.
const ROOT = process.cwd()
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } })
const at = (file: string) => join(ROOT, file)

describe('import layers', () => {
  it('places every source folder in a layer', () => {
    for (const file of [
      'src/contracts/room.ts',
      'src/common/ipc-channels.ts',
      'src/consent/consent-token.ts',
      'src/runtime/domain/approval.ts',
      'src/runtime/store/database.ts',
      'src/main/core/consent-controller.ts',
      'src/main/electron/protected-window.ts',
      'src/main/cdp/cdp-host.ts',
      'src/main/index.ts',
      'src/preload-workbench/index.ts',
      'src/preload-protected/index.ts',
      'src/renderer/workbench/app.tsx',
      'src/cli/assent.ts',
      'src/gateway/main.ts',
      'scripts/bench/run.ts',
    ]) {
      expect(layerOf(file), file).toBeDefined()
    }
    expect(layerOf('src/runtime/domain/approval.ts')?.path).toBe('src/runtime/domain/')
  })

  it('gives every folder of the runtime a layer of its own, so none inherits the wiring’s reach', () => {
    const folders = readdirSync(join(ROOT, 'src/runtime'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'test-support')
      .map((entry) => `src/runtime/${entry.name}/`)
    expect(folders.length).toBeGreaterThan(10)
    for (const folder of folders) expect(layerOf(`${folder}x.ts`)?.path, folder).toBe(folder)
    expect(layerOf('src/runtime/runtime-app.ts')?.path).toBe('src/runtime/')
  })

  it.each([
    // MCP, rooms and the agent runner meet only in ports, so none closes a loop.
    ['src/runtime/mcp/gateway-call-service.ts', 'src/runtime/rooms/room-service.ts'],
    ['src/runtime/mcp/mcp-room-calls.ts', 'src/runtime/agent/agent-runner.ts'],
    ['src/runtime/agent/tool-call-runner.ts', 'src/runtime/mcp/mcp-room-calls.ts'],
    ['src/runtime/agent/agent-runner.ts', 'src/runtime/rooms/turn-service.ts'],
    ['src/runtime/rooms/turn-service.ts', 'src/runtime/agent/agent-runner.ts'],
    ['src/runtime/rooms/room-service.ts', 'src/runtime/mcp/mcp-room-calls.ts'],
    // Services reach the store only through ports.
    ['src/runtime/gate/approval-gate.ts', 'src/runtime/store/database.ts'],
    ['src/runtime/agent/tool-call-runner.ts', 'src/runtime/store/database.ts'],
    ['src/runtime/rooms/room-service.ts', 'src/runtime/store/room-repository.ts'],
    ['src/runtime/input/input-request-service.ts', 'src/runtime/store/audit-log.ts'],
    ['src/runtime/recovery/crash-recovery.ts', 'src/runtime/store/conversation-repository.ts'],
    // The store and the ports know no service, policy or transport.
    ['src/runtime/store/room-repository.ts', 'src/runtime/policy/room-policy.ts'],
    ['src/runtime/store/approval-repository.ts', 'src/runtime/gate/approval-gate.ts'],
    ['src/runtime/ports/room-store.ts', 'src/runtime/store/room-repository.ts'],
    ['src/runtime/ports/approval-store.ts', 'src/runtime/gate/approval-gate.ts'],
    // Only the server turns codes into statuses.
    ['src/runtime/rooms/room-service.ts', 'src/runtime/server/error-status.ts'],
    ['src/runtime/gate/approval-gate.ts', 'src/runtime/server/http-kit.ts'],
    ['src/runtime/domain/refusal.ts', 'src/runtime/server/error-status.ts'],
    // The domain and the leaves stay leaves.
    ['src/runtime/domain/approval.ts', 'src/runtime/ports/approval-store.ts'],
    ['src/runtime/policy/reviewer.ts', 'src/runtime/gate/approval-gate.ts'],
    ['src/runtime/concurrency/keyed-mutex.ts', 'src/runtime/domain/approval.ts'],
    ['src/runtime/gate/approval-requester.ts', 'src/runtime/agent/approval-wait.ts'],
  ])('refuses inside the runtime %s → %s', (from, target) => {
    expect(refusalFor(from, target)).toMatch(/may not import/)
  })

  it.each([
    ['src/runtime/store/room-repository.ts', 'src/runtime/ports/room-store.ts'],
    ['src/runtime/store/approval-repository.ts', 'src/runtime/domain/approval.ts'],
    ['src/runtime/ports/mcp-tool-calls.ts', 'src/runtime/domain/agent-preset.ts'],
    ['src/runtime/gate/approval-gate.ts', 'src/runtime/ports/approval-store.ts'],
    ['src/runtime/gate/approval-requester.ts', 'src/runtime/policy/reviewer.ts'],
    ['src/runtime/agent/tool-call-runner.ts', 'src/runtime/gate/approval-requester.ts'],
    ['src/runtime/mcp/mcp-room-calls.ts', 'src/runtime/ports/mcp-tool-calls.ts'],
    ['src/runtime/mcp/gateway-call-service.ts', 'src/runtime/concurrency/keyed-mutex.ts'],
    ['src/runtime/rooms/turn-service.ts', 'src/runtime/ports/turn-runner.ts'],
    ['src/runtime/server/http-kit.ts', 'src/runtime/server/error-status.ts'],
    ['src/runtime/server/routes/room-routes.ts', 'src/runtime/rooms/room-service.ts'],
    ['src/runtime/runtime-app.ts', 'src/runtime/store/database.ts'],
    ['src/runtime/runtime-app.ts', 'src/runtime/agent/agent-runner.ts'],
  ])('allows inside the runtime %s → %s', (from, target) => {
    expect(refusalFor(from, target)).toBeUndefined()
  })

  it.each([
    ['src/renderer/workbench/app.tsx', 'src/runtime/gate/approval-gate.ts'],
    ['src/renderer/workbench/app.tsx', 'src/consent/consent-token.ts'],
    ['src/renderer/workbench/app.tsx', 'src/main/core/main-services.ts'],
    ['src/preload-workbench/index.ts', 'src/consent/consent-token.ts'],
    ['src/preload-protected/index.ts', 'src/consent/consent-token.ts'],
    ['src/preload-protected/index.ts', 'src/main/core/sender-validator.ts'],
    ['src/main/core/main-services.ts', 'src/runtime/runtime-app.ts'],
    ['src/main/core/main-services.ts', 'src/main/electron/protected-window.ts'],
    ['src/main/core/main-services.ts', 'src/main/cdp/cdp-host.ts'],
    ['src/main/electron/protected-window.ts', 'src/main/cdp/protected-windows.ts'],
    ['src/main/cdp/cdp-host.ts', 'src/main/electron/protected-window.ts'],
    ['src/runtime/server/router.ts', 'src/main/core/runtime-client.ts'],
    ['src/runtime/server/router.ts', 'src/common/ipc-channels.ts'],
    ['src/runtime/domain/approval.ts', 'src/runtime/store/database.ts'],
    ['src/contracts/room.ts', 'src/common/consent-view.ts'],
    ['src/contracts/room.ts', 'src/runtime/domain/approval.ts'],
    ['src/common/consent-view.ts', 'src/runtime/domain/approval.ts'],
    ['src/consent/consent-token.ts', 'src/runtime/server/router.ts'],
    ['src/gateway/main.ts', 'src/runtime/gate/approval-gate.ts'],
    ['src/runtime/agent/agent-runner.ts', 'scripts/smoke/wait.ts'],
    ['src/runtime/agent/agent-runner.ts', 'tests/support/runtime-harness.ts'],
    ['src/main/core/consent-controller.ts', 'src/consent/test-support/consent-token-fixtures.ts'],
    ['scripts/bench/decision-bench.ts', 'tests/support/runtime-harness.ts'],
    // The smoke drives the product from outside: never the runtime's internals.
    ['scripts/smoke/audit-evidence.ts', 'src/runtime/store/audit-chain.ts'],
    ['scripts/smoke/cases/permission-cases.ts', 'src/runtime/domain/approval.ts'],
    ['scripts/smoke/cases/question-cases.ts', 'src/runtime/input/input-request-service.ts'],
    // A helper beside the runtime's tests stays in the runtime's process.
    ['src/runtime/rollback/test-support/rig.ts', 'src/main/core/rollback-anchor-keeper.ts'],
    ['src/runtime/test-support/sqlite-stores.ts', 'src/main/core/file-secret-store.ts'],
  ])('refuses %s → %s', (from, target) => {
    expect(refusalFor(from, target)).toMatch(/may not import/)
  })

  it.each([
    ['src/renderer/workbench/app.tsx', 'src/contracts/room.ts'],
    ['src/renderer/workbench/app.tsx', 'src/common/i18n/index.ts'],
    ['src/main/core/consent-controller.ts', 'src/consent/consent-token.ts'],
    ['src/main/electron/protected-window.ts', 'src/main/core/page-sites.ts'],
    ['src/main/cdp/cdp-host.ts', 'src/main/core/main-services.ts'],
    ['src/runtime/server/router.ts', 'src/consent/consent-token.ts'],
    ['src/runtime/domain/approval.ts', 'src/contracts/approval.ts'],
    ['src/gateway/gateway-server.ts', 'src/runtime/mcp/mcp-connection.ts'],
    ['src/consent/consent-token.test.ts', 'src/consent/test-support/consent-token-fixtures.ts'],
    ['tests/cdp-host.test.ts', 'src/main/cdp/cdp-host.ts'],
    ['scripts/smoke/run.ts', 'src/main/cdp/cdp-host.ts'],
    ['scripts/smoke/cases/permission-cases.ts', 'src/contracts/approval.ts'],
    ['scripts/smoke/smoke-agents.ts', 'scripts/agents/agent-cache.ts'],
    // A runtime helper may wire the real store for a service's tests.
    ['src/runtime/gate/test-support/approval-gate-fixture.ts', 'src/runtime/store/database.ts'],
    ['src/runtime/gate/test-support/approval-gate-fixture.ts', 'tests/support/test-secrets.ts'],
    ['tests/support/rollback-rig.ts', 'src/main/core/rollback-anchor-keeper.ts'],
  ])('allows %s → %s', (from, target) => {
    expect(refusalFor(from, target)).toBeUndefined()
  })

  it.each([
    ['src/main/core/main-services.ts', 'electron'],
    ['src/main/cdp/cdp-host.ts', 'electron'],
    ['src/main/electron/protected-window.ts', 'playwright-core'],
    ['src/renderer/workbench/app.tsx', 'node:fs'],
    ['src/renderer/workbench/app.tsx', 'electron'],
    ['src/preload-protected/index.ts', 'node:child_process'],
    ['src/runtime/store/database.ts', 'keytar'],
    ['src/runtime/server/router.ts', 'electron'],
    ['src/runtime/domain/approval.ts', 'node:fs'],
    ['src/runtime/ports/durability.ts', 'node:sqlite'],
    ['src/runtime/store/database.ts', 'electron'],
    ['src/contracts/room.ts', 'node:crypto'],
    ['src/common/consent-view.ts', 'node:path'],
  ])('refuses %s → the package %s', (from, specifier) => {
    expect(packageRefusalFor(from, specifier)).toMatch(/may not import/)
  })

  it('lets the domain hash, and every layer name a reason', () => {
    expect(packageRefusalFor('src/runtime/domain/sha256.ts', 'node:crypto')).toBeUndefined()
    expect(packageRefusalFor('src/main/electron/protected-window.ts', 'electron')).toBeUndefined()
    for (const layer of LAYERS) expect(layer.why.length).toBeGreaterThan(20)
  })
})

describe('the import-layers rule in ESLint', () => {
  tester.run('import-layers', importLayersRule, {
    valid: [
      {
        code: "import { z } from 'zod'\nimport type { Room } from '../../contracts/room.ts'",
        filename: at('src/renderer/workbench/app.tsx'),
      },
      {
        code: "export { IPC } from '../../common/ipc-channels.ts'",
        filename: at('src/main/core/x.ts'),
      },
    ],
    invalid: [
      {
        code: "import { RuntimeApp } from '../../runtime/runtime-app.ts'",
        filename: at('src/main/core/x.ts'),
        errors: [{ message: /src\/main\/core\/ may not import src\/runtime\/runtime-app\.ts/ }],
      },
      {
        code: "export * from '../consent/consent-token.ts'",
        filename: at('src/common/x.ts'),
        errors: [{ message: /may not import src\/consent/ }],
      },
      {
        code: "export { mint } from '../consent/consent-token.ts'",
        filename: at('src/preload-workbench/x.ts'),
        errors: [{ message: /may not import src\/consent/ }],
      },
      {
        code: "const m = await import('../../../tests/support/runtime-harness.ts')",
        filename: at('src/runtime/agent/x.ts'),
        errors: [{ message: /product code and may not import test code/ }],
      },
      {
        code: "import { BrowserWindow } from 'electron'",
        filename: at('src/main/core/x.ts'),
        errors: [{ message: /may not import 'electron'/ }],
      },
      {
        code: "import { inTransaction } from '../store/database.ts'",
        filename: at('src/runtime/agent/x.ts'),
        errors: [
          { message: /src\/runtime\/agent\/ may not import src\/runtime\/store\/database\.ts/ },
        ],
      },
      {
        code: "import type { RoomService } from '../rooms/room-service.ts'",
        filename: at('src/runtime/mcp/x.ts'),
        errors: [{ message: /never rooms\/ or agent\// }],
      },
    ],
  })
})
