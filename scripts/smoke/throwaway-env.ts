import { join } from 'node:path'

/**
 * The environment every process of the scenario runs with: HOME and the XDG
 * folders inside the run's scratch folder, and the integrity key in the
 * throwaway data folder's key file (ASSENT_SECRET_STORE=file, which the product
 * honours only when asked explicitly). So nothing the scenario does lands in
 * the person's home or keychain, and deleting the scratch folder removes it.
 */
export function throwawayEnvironment(home: string): Record<string, string> {
  return {
    HOME: home,
    USERPROFILE: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    ASSENT_SECRET_STORE: 'file',
  }
}
