import { describe, expect, it } from 'vitest'
import { externalLinkTarget } from './external-links.ts'

describe('externalLinkTarget', () => {
  it('opens plain http and https links, normalised by the URL parser', () => {
    expect(externalLinkTarget('https://example.com/a?b=1#c')).toBe('https://example.com/a?b=1#c')
    expect(externalLinkTarget('HTTP://Example.COM')).toBe('http://example.com/')
  })

  it('refuses every other scheme', () => {
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<p>x</p>',
      'mailto:a@example.com',
      'smb://host/share',
      'ms-msdt:/id',
      'assent-app://app/workbench/index.html',
      'assent-consent://consent/consent/index.html',
      'vscode://file/x',
    ]) {
      expect(externalLinkTarget(url), url).toBeUndefined()
    }
  })

  it('refuses credentials in the URL and things that do not parse', () => {
    expect(externalLinkTarget('https://user:pass@example.com/')).toBeUndefined()
    expect(externalLinkTarget('https://user@example.com/')).toBeUndefined()
    expect(externalLinkTarget('example.com')).toBeUndefined()
    expect(externalLinkTarget('')).toBeUndefined()
  })
})
