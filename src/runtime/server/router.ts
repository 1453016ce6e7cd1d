import { ID_PATTERN, type HttpMethod } from '../../contracts/ids.ts'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Refusal } from '../domain/refusal.ts'

export interface RouteContext {
  req: IncomingMessage
  res: ServerResponse
  params: Record<string, string>
}

export interface Route {
  method: HttpMethod
  /** e.g. `/v1/rooms/:roomId/timeline`; each `:param` matches one id. */
  pattern: string
  handle: (context: RouteContext) => Promise<void>
  /** Whether the MCP gateway's credential may call this route. Absent means
   *  no: the gateway reaches only what was opened to it by name, so a new
   *  route (deciding an approval, say) is never the gateway's by default. */
  gatewayMayCall?: true
}

export class Router {
  private readonly routes: Array<Route & { segments: string[] }> = []

  add(...routes: Route[]): void {
    for (const route of routes) this.routes.push({ ...route, segments: route.pattern.split('/') })
  }

  get patterns(): Array<{ method: HttpMethod; pattern: string }> {
    return this.routes.map(({ method, pattern }) => ({ method, pattern }))
  }

  match(method: string, pathname: string): { route: Route; params: Record<string, string> } {
    const segments = pathname.split('/')
    let pathMatched = false
    for (const route of this.routes) {
      const params = matchSegments(route.segments, segments)
      if (!params) continue
      pathMatched = true
      if (route.method === method) return { route, params }
    }
    if (pathMatched) throw new Refusal('method_not_allowed', `${method} is not allowed here`)
    throw new Refusal('not_found', 'no such route')
  }
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined
  const params: Record<string, string> = {}
  for (const [index, part] of pattern.entries()) {
    const value = actual[index] ?? ''
    if (part.startsWith(':')) {
      if (!ID_PATTERN.test(value)) return undefined
      params[part.slice(1)] = value
    } else if (part !== value) {
      return undefined
    }
  }
  return params
}

/**
 * The path parameter `name` of the route that matched. The router sets every
 * `:param` of the pattern it matched, so a missing one is a handler asking
 * for a name its own pattern lacks: a bug, answered as an internal error
 * instead of being read as an empty id.
 */
export function routeParam(params: Readonly<Record<string, string>>, name: string): string {
  const value = params[name]
  if (value === undefined) throw new Error(`the route has no :${name} parameter`)
  return value
}
