import { describe, expect, it } from 'vitest'
import { RUNTIME_ERROR_CODES } from '../../contracts/error-codes.ts'
import { WORKBENCH_ERROR_CODES } from '../workbench-error.ts'
import { catalogs } from './index.ts'
import { englishWordsIn } from './latin-words.ts'

const CJK = /[\u4e00-\u9fff]/

describe('the error-code catalogs', () => {
  it('cover every code the runtime and main can send', () => {
    expect(WORKBENCH_ERROR_CODES).toEqual(expect.arrayContaining([...RUNTIME_ERROR_CODES]))
    for (const catalog of Object.values(catalogs)) {
      expect(Object.keys(catalog.errorCode).sort()).toEqual([...WORKBENCH_ERROR_CODES].sort())
    }
  })

  it.each(WORKBENCH_ERROR_CODES)('words %s in English', (code) => {
    expect(catalogs.en.errorCode[code].trim()).not.toBe('')
  })

  it.each(WORKBENCH_ERROR_CODES)('words %s in Chinese, with no English word left', (code) => {
    const text = catalogs['zh-CN'].errorCode[code]
    expect(text).toMatch(CJK)
    expect(englishWordsIn(text)).toEqual([])
    expect(text).not.toBe(catalogs.en.errorCode[code])
  })

  it('finds English left in a message (the check above can fail)', () => {
    expect(englishWordsIn('运行时拒绝了 the request {{path}}：Assent、MCP')).toEqual([
      'the',
      'request',
    ])
    expect(englishWordsIn('运行时拒绝了 {{path}}')).toEqual([])
  })
})
