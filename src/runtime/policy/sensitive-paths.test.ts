import { describe, expect, it } from 'vitest'
import { sensitivePathReason } from './sensitive-paths.ts'

describe('sensitivePathReason', () => {
  it.each([
    '/home/u/.ssh/authorized_keys',
    '/home/u/.ssh/config',
    '/home/u/.SSH/config',
    '/home/u/.aws/credentials',
    '/home/u/.gnupg/pubring.kbx',
    '/home/u/.kube/config',
    '/home/u/.docker/config.json',
    '/home/u/.netrc',
    '/home/u/.npmrc',
    'project/.npmrc',
    'project/.env',
    'project/.env.local',
    '/home/u/.bashrc',
    '/home/u/.zshrc',
    '/home/u/.profile',
    '/home/u/.bash_profile',
    '/home/u/.config/fish/config.fish',
    '/home/u/.gitconfig',
    '/home/u/.git-credentials',
    'keys/id_rsa',
    'keys/id_ed25519.pub',
    'repo/.git/hooks/pre-commit',
    'repo/.git/config',
    'C:\\Users\\u\\.ssh\\id_rsa',
  ])('recognises %s', (p) => {
    expect(sensitivePathReason(p)).not.toBeNull()
  })

  it.each([
    'notes/ssh-tips.md',
    'src/env.ts',
    'docs/.environment.md',
    'src/profile.ts',
    'repo/config',
    'keys/id_rsa_notes_are_here.md.bak/readme',
    'bashrc-examples/readme.md',
    '',
    '/',
  ])('leaves %j alone', (p) => {
    expect(sensitivePathReason(p)).toBeNull()
  })
})
