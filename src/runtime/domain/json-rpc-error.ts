/** A JSON-RPC error to answer a request with: its numeric `code` is what
 *  the peer reads. The external agents' peer answers with it, and so does
 *  the MCP elicitation door (the MCP SDK sends any thrown error's numeric
 *  `code` as the error's code), without loading the SDK for it. */
export class RpcError extends Error {
  readonly code: number

  constructor(code: number, message: string) {
    super(message)
    this.code = code
  }
}

export const RPC_INVALID_REQUEST = -32600
export const RPC_METHOD_NOT_FOUND = -32601
export const RPC_INVALID_PARAMS = -32602
export const RPC_INTERNAL_ERROR = -32603
