/** Why a file tool refused before it touched anything; the message says
 *  what it found, in words a person reads. */
export type FileRefusalCode =
  | 'target_changed'
  | 'hard_linked_target'
  | 'symlink_refused'
  | 'not_a_file'
  | 'too_deep'
  | 'unsupported_platform'

export class FileRefusal extends Error {
  readonly code: FileRefusalCode
  constructor(code: FileRefusalCode, message: string) {
    super(message)
    this.code = code
  }
}
