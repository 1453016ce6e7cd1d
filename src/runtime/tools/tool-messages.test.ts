import { describe, expect, it } from 'vitest'
import { catalogs } from '../../common/i18n/index.ts'
import {
  englishText,
  messageText,
  templateIn,
  type RuntimeMessage,
} from '../../contracts/runtime-message.ts'
import { TOOLS } from './registry.ts'
import { fsFailure } from './tool-types.ts'

// What the built-in tools say to the person is a code with parameters that
// both catalogs word: the English is the text the API and the model get,
// the Chinese never falls back to it.

const chinese = (said: RuntimeMessage) =>
  messageText(said, (code) => templateIn(catalogs['zh-CN'].runtime, code))

const SAMPLE_ARGS = {
  read_file: { path: 'notes.txt' },
  list_dir: { path: 'src' },
  write_file: { path: 'notes.txt', content: 'héllo' },
  delete_file: { path: 'build', recursive: true },
  run_command: { argv: ['git', 'status'], cwd: 'app' },
} as const

describe('the built-in tools say what they do in words', () => {
  it.each(Object.keys(TOOLS) as Array<keyof typeof TOOLS>)(
    '%s gives its summary as a code worded in English and in Chinese',
    (name) => {
      const tool = TOOLS[name] as unknown as {
        summarize(args: unknown): string
        summaryMessage?(args: unknown): RuntimeMessage
      }
      const said = tool.summaryMessage?.(SAMPLE_ARGS[name])
      expect(said).toBeDefined()
      expect(englishText(said!)).toBe(tool.summarize(SAMPLE_ARGS[name]))
      const zh = chinese(said!)
      expect(zh).toBeDefined()
      expect(zh).not.toBe(englishText(said!))
    },
  )

  it('counts the bytes of a write, not its characters', () => {
    expect(TOOLS.write_file.summaryMessage?.(SAMPLE_ARGS.write_file)).toEqual({
      code: 'summary.write',
      params: { bytes: 6, path: 'notes.txt' },
    })
  })

  it.each(['ENOENT', 'EEXIST', 'EISDIR', 'ENOTDIR', 'ENOTEMPTY', 'EACCES', 'EPERM', 'ELOOP'])(
    'words the file-system error %s in both languages',
    (errno) => {
      const result = fsFailure('write', '/w/a', Object.assign(new Error(errno), { code: errno }))
      expect(result.message).toBeDefined()
      expect(result.output).toBe(englishText(result.message!))
      expect(result.output).not.toContain(errno)
      expect(chinese(result.message!)).toMatch(/^无法写入 \/w\/a：/)
    },
  )

  it("keeps the system's own words for an error it does not know, as a value", () => {
    const result = fsFailure(
      'read',
      '/w/a',
      Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }),
    )
    expect(result.code).toBe('io_error')
    expect(chinese(result.message!)).toBe('无法读取 /w/a：EIO: i/o error')
  })
})
