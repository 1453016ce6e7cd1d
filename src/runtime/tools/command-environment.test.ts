import { describe, expect, it } from 'vitest'
import { BASE_AGENT_ENVIRONMENT } from '../../contracts/agents-config.ts'
import { commandEnvironment } from './command-environment.ts'

describe('the environment of a command the agent runs', () => {
  it('is built from the allowlist alone, with the values the runtime has', () => {
    const env = commandEnvironment({
      PATH: '/bin',
      HOME: '/home/ada',
      DISPLAY: ':0',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      SSH_AUTH_SOCK: '/run/user/1000/ssh',
      ASSENT_DATA_DIR: '/secret',
    })
    expect(env).toEqual({ PATH: '/bin', HOME: '/home/ada' })
  })

  it('passes every allowlisted name that is set, and leaves out those that are not', () => {
    const source = Object.fromEntries(BASE_AGENT_ENVIRONMENT.map((name) => [name, `v-${name}`]))
    expect(commandEnvironment(source)).toEqual(source)
    expect(commandEnvironment({})).toStrictEqual({})
    expect(Object.keys(commandEnvironment({ PATH: '/bin' }))).toEqual(['PATH'])
  })

  it('names the session handles nowhere in the allowlist', () => {
    for (const handle of [
      'DISPLAY',
      'WAYLAND_DISPLAY',
      'XAUTHORITY',
      'DBUS_SESSION_BUS_ADDRESS',
      'XDG_RUNTIME_DIR',
      'SSH_AUTH_SOCK',
    ]) {
      expect(BASE_AGENT_ENVIRONMENT).not.toContain(handle)
    }
  })
})
