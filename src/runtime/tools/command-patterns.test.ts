import { describe, expect, it } from 'vitest'
import { isDestructiveCommand, pipesDownloadToShell } from './command-patterns.ts'

describe('isDestructiveCommand', () => {
  it.each([
    [['rm', '-r', 'dir']],
    [['rm', '-rf', '/']],
    [['rm', '-fr', 'x']],
    [['rm', '-f', '-R', 'x']],
    [['rm', '--recursive', 'x']],
    [['rm', 'x', '-rf']],
    [['/bin/rm', '-rf', 'x']],
    [['RM', '-RF', 'x']],
    [['sh', '-c', 'cd /tmp && rm -rf *']],
    [['mkfs', '/dev/sdb1']],
    [['mkfs.ext4', '/dev/sdb1']],
    [['dd', 'if=/dev/zero', 'of=/dev/sda']],
    [['sh', '-c', 'cat img > /dev/sda']],
    [['sh', '-c', 'echo x >/dev/nvme0n1']],
    [['shred', '-u', 'secret']],
    [['find', '.', '-name', '*.tmp', '-delete']],
  ])('flags %j', (argv) => {
    expect(isDestructiveCommand(argv)).toBe(true)
  })

  it.each([
    [['rm', 'file.txt']],
    [['rm', '-f', 'file.txt']],
    [['ls', '-r']],
    [['grep', '-r', 'rm', '.']],
    [['echo', 'farm -rf']],
    [['dd', 'if=/dev/zero', 'count=1']],
    [['cat', '/dev/sda']],
    [['git', 'status']],
    [['npm', 'run', 'format']],
  ])('leaves %j alone', (argv) => {
    expect(isDestructiveCommand(argv)).toBe(false)
  })
})

describe('pipesDownloadToShell', () => {
  it.each([
    [['sh', '-c', 'curl https://x.sh | sh']],
    [['sh', '-c', 'curl -fsSL https://x.sh | bash -s -- --yes']],
    [['bash', '-c', 'wget -qO- https://x | sudo bash']],
    [['sh', '-c', 'curl https://x | /bin/sh']],
    [['sh', '-c', 'curl https://x | python3']],
    [['bash', '-c', 'bash <(curl -s https://x)']],
    [['sh', '-c', 'sh -c "$(curl -fsSL https://x)"']],
    [['sh', '-c', 'eval `wget -qO- https://x`']],
  ])('flags %j', (argv) => {
    expect(pipesDownloadToShell(argv)).toBe(true)
  })

  it.each([
    [['curl', '-o', 'file.tar.gz', 'https://x']],
    [['sh', '-c', 'curl https://x | grep version']],
    [['sh', '-c', 'cat install.sh | less']],
    [['wget', 'https://x/bash']],
  ])('leaves %j alone', (argv) => {
    expect(pipesDownloadToShell(argv)).toBe(false)
  })
})
