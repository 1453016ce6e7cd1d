import type { Catalog } from './index.ts'

/** Simplified Chinese messages: the same keys as `en`, checked by the type
 *  and by `catalogs.test.ts`. */
export const zhCN: Catalog = {
  consent: {
    pageTitle: 'Assent：请审核此操作',
    kind: {
      'run-command': '运行命令',
      'apply-changes': '应用更改',
      'mcp-tool-call': 'MCP 工具调用',
      permissions: '权限请求',
      read: '读取文件',
    },
    label: {
      tool: '工具',
      arguments: '参数',
      workingDirectory: '工作目录',
      sandboxMode: '沙盒模式',
      room: '房间',
      actionDigest: '操作摘要值',
    },
    button: {
      allowOnce: '允许一次',
      allowAlways: '始终允许',
      deny: '拒绝',
      confirm: '确认更改',
      cancel: '取消',
    },
    modeChange: {
      heading: '更改权限模式',
      sentence: '将 {{room}} 的模式从“{{from}}”更改为“{{to}}”。',
      fromLabel: '当前模式',
      toLabel: '新模式',
      allowsLabel: '新模式允许的操作',
    },
    keyboardHint: '按 Enter 键永远不会批准。按 Esc 键取消。',
  },
  mode: {
    'ask-for-approval': {
      name: '请求批准',
      description: '在写入文件和运行命令之前先询问我',
    },
    'approve-for-me': {
      name: '代我批准',
      description: '由自动审核程序决定；有风险的操作仍会交给我',
    },
    'full-access': {
      name: '完全访问',
      description: '智能体能触及的任何操作都直接运行，不再询问',
    },
  },
}
