// @vitest-environment happy-dom
import { cleanup, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { renderWithI18n } from '../test-support/render.tsx'
import { KeyFileNotice } from './key-file-notice.tsx'

afterEach(cleanup)

describe('the key file warning', () => {
  it('says the key is in a file in the data folder, in English', () => {
    renderWithI18n(<KeyFileNotice shown />, 'en')
    expect(screen.getByTestId('key-file-notice').textContent).toMatch(
      /plain file in its data folder.*forge/,
    )
  })

  it('says it in Chinese, with no English words but names', () => {
    renderWithI18n(<KeyFileNotice shown />, 'zh-CN')
    const text = screen.getByTestId('key-file-notice').textContent ?? ''
    expect(text).toContain('数据文件夹')
    expect(text.replace(/Assent|ASSENT_SECRET_STORE/g, '')).not.toMatch(/[A-Za-z]/)
  })

  it('is absent while the key is in the keychain', () => {
    renderWithI18n(<KeyFileNotice shown={false} />, 'en')
    expect(screen.queryByTestId('key-file-notice')).toBeNull()
  })
})
