import type { Catalog } from '../index.ts'

/** What a person reads when the runtime or main refuses or fails, by code,
 *  in Simplified Chinese: the keys of `enErrorCodes` (../en/error-codes.ts). */
export const zhCNErrorCodes: Catalog['errorCode'] = {
  // The runtime's: the request itself.
  malformed_request: '运行时拒绝了一个它无法读取的请求',
  headers_too_large: '运行时拒绝了一个请求头过大的请求',
  request_timeout: '请求到达得太慢，运行时已将其丢弃',
  wrong_host: '运行时拒绝了一个发往其他主机的请求',
  browser_origin: '运行时拒绝一切来自网页浏览器的请求',
  unauthorized: '运行时拒绝了一个没有带上 Assent 凭据的请求',
  gateway_forbidden: 'MCP 网关无权发出此请求',
  unexpected_query: '运行时拒绝了一个带有它不接受的参数的请求',
  not_found: '运行时不认识此请求',
  method_not_allowed: '运行时在此处不接受这类请求',
  bad_content_type: '运行时拒绝了一个正文不是 JSON 的请求',
  body_too_large: '请求太大，运行时无法接受',
  invalid_json: '运行时拒绝了一个正文不是有效 JSON 的请求',
  invalid_body: '运行时拒绝了一个带有它不接受的值的请求',
  unexpected_body: '运行时拒绝了一个带有它不接受的正文的请求',
  incomplete_body: '请求到达运行时时不完整',
  invalid_last_event_id: '运行时无法从中断处继续发送更新',
  consent_required: '这需要你在受保护窗口中决定',
  // Approvals.
  unknown_approval: '运行时已不再知道此批准',
  approval_decided: '智能体已不再等待此批准',
  approval_expired: '此批准在决定前已过期',
  decision_in_progress: '对此项的另一个审核已经打开',
  always_allow_unavailable: '此操作不提供“始终允许”',
  // Rooms, their permissions and grants.
  unknown_room: '运行时不知道这个房间',
  unknown_agent: '没有这个智能体',
  invalid_workspace:
    '工作区文件夹不存在，或不能作为工作区（文件系统根目录、你的主文件夹本身或系统文件夹）',
  private_conversation_required: '这只能在与智能体的私聊中使用',
  stale_revision: '房间在此期间已更改，请重试',
  client_request_conflict: '此请求已经以不同的内容发送过',
  read_only_agent: '此智能体不能使用完全访问：它是只读的',
  agent_directory_limits: '此智能体不能使用完全访问：它只能使用特定的文件夹',
  room_tampered: '此房间在 Assent 之外被更改，无法确认：请再次确认房间的模式，或新建一个房间',
  approval_tampered: '此批准在智能体请求之后于 Assent 之外被更改：它已被撤回，什么都不会运行',
  unknown_grant: '该授权已被撤销',
  rollback_anchor_unavailable:
    'Assent 无法更新它保存在钥匙串中的记录，因此在能够更新之前不会放宽任何权限；请重试',
  // Turns and executions.
  unknown_turn: '运行时不知道这一轮',
  turn_in_progress: '该请求仍在运行',
  turn_not_running: '该请求已经结束',
  turn_not_stoppable:
    '内置智能体的这一轮无法停止：它在所等待的事项被决定后结束；拒绝它的请求即可结束它',
  execution_unknown: '这一轮中有一次调用的结果未知：请先处理它再重试',
  workspace_mismatch: '这一轮的记录与它的房间不符：数据库在 Assent 之外被更改过',
  workspace_moved:
    '此房间工作区路径下的文件夹已不是创建房间时的那个：再次确认房间的模式以接受它，或新建一个房间',
  unknown_execution: '运行时不知道这次调用',
  not_unknown: '只有结果未知的调用才能被处理',
  // Questions and forms.
  unknown_request: '智能体已不再等待此回答',
  not_pending: '智能体已不再等待此回答',
  blocking: '这个问题会一直等待回答，没有可以更改的时限',
  wrong_action: '这个回答不适用于这类请求',
  protected_form: '这个表单只能在受保护窗口中填写',
  invalid_content: '填写的值不符合表单',
  invalid_answer: '回答不符合问题：每个问题都需要选择它的一个选项',
  // MCP gateway calls.
  unknown_call: '运行时不知道这次 MCP 调用',
  not_running: '这次 MCP 调用已不在运行',
  too_many_waiting: '已有太多 MCP 调用在等待你的决定：这一次未经询问即被拒绝，没有运行',
  // The runtime itself.
  not_durable: '运行时无法确认这已保存到磁盘',
  internal: '运行时意外失败',
  // Main's.
  invalid_arguments: 'Assent 拒绝了一个带有它不接受的值的请求',
  unknown_channel: 'Assent 不认识此请求',
  sender_refused: 'Assent 只接受来自它自己的工作台页面的此请求',
  relay_refused: 'Assent 不会把此请求转给运行时',
  runtime_down: '运行时未在运行',
  runtime_restarted: '运行时已重启',
  app_closing: 'Assent 正在关闭',
  rejected_by_message: '一条新消息拒绝了它',
  full_access_unavailable: '此智能体不能使用完全访问',
  not_sensitive_form: '这个表单在工作台中填写，而不是在受保护窗口中',
  form_invalid: '填写的值不符合表单',
  window_not_shown: '无法显示受保护窗口',
  window_left_page: '受保护窗口离开了它的页面，因此已关闭：请重新审核',
  runtime_unreadable: '运行时的回答 Assent 无法读取，因此不做任何假定',
  main_failed: 'Assent 意外失败',
}
