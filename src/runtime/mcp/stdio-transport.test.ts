import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  runWithDescriptorsLeftOpen,
  SECRET_ON_31,
  WRITTEN_THROUGH_30,
} from '../child-processes/test-support/left-open.ts'

// A stdio MCP server started by a runtime that a shell left descriptors
// open to: a grant for its shell tool, the reviewer or the webhook answers
// `echo … >&30`, which names no file, and the server's command writes the
// file behind 30 (the person's ~/.bashrc, say) and reads the one behind
// 31. Each is /dev/null in the server. Real processes, on the real SDK
// client.

describe('the descriptors a stdio MCP server is handed', () => {
  it('are its three, not one the runtime was left', async () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'assent-mcp-fds-')))
    try {
      const child = join(import.meta.dirname, 'test-support', 'left-open-server-child.ts')
      const { stdout, appended } = await runWithDescriptorsLeftOpen(folder, child, [folder])
      expect(stdout).toBe('read: \n')
      expect(stdout).not.toContain(SECRET_ON_31)
      expect(readFileSync(appended, 'utf8')).not.toContain(WRITTEN_THROUGH_30)
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
