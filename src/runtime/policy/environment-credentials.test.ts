import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { credentialPlacesNamedBy } from './environment-credentials.ts'

const HOME = '/home/me'
const placesOf = (env: NodeJS.ProcessEnv) =>
  credentialPlacesNamedBy(env, HOME).map(({ place }) => place)

describe('the credential places the environment names', () => {
  it('takes a place, a list of places, a tool folder and a moved part of the home folder', () => {
    const places = placesOf({
      GNUPGHOME: '/srv/me/gnupg',
      KUBECONFIG: ['/srv/kube/a', '/srv/kube/b'].join(path.delimiter),
      CARGO_HOME: '/opt/cargo',
      XDG_CONFIG_HOME: '/home/me/.xdg',
      XDG_DATA_HOME: '/data/me',
    })
    expect(places).toEqual(
      expect.arrayContaining([
        '/srv/me/gnupg',
        '/srv/kube/a',
        '/srv/kube/b',
        '/opt/cargo/credentials.toml',
        '/home/me/.xdg/gh',
        '/home/me/.xdg/git/credentials',
        '/data/me/keyrings',
      ]),
    )
  })

  it('leaves out a relative value, and one that is / or holds the home folder', () => {
    // Hidden, either would take the workspace from every command; they
    // name no credential place but a process's folder, or everything.
    expect(
      placesOf({ GNUPGHOME: 'gnupg', DOCKER_CONFIG: '/', NETRC: HOME, GH_CONFIG_DIR: '/home' }),
    ).toEqual([])
  })
})
