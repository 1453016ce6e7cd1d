import type { Catalog } from './index.ts'
import { zhCNConsent } from './zh-CN/consent.ts'
import { zhCNErrorCodes } from './zh-CN/error-codes.ts'
import { zhCNRuntime } from './zh-CN/runtime.ts'
import { zhCNWorkbench } from './zh-CN/workbench.ts'

/** Simplified Chinese messages: the same keys as `en`, checked by the type
 *  and by `catalogs.test.ts`. */
export const zhCN: Catalog = {
  consent: zhCNConsent,
  agent: {
    assistant: '助手',
    reader: '阅读者',
    scoped: '受限助手',
    mcpGateway: 'MCP 客户端',
  },
  mode: {
    plan: {
      name: '规划',
      description: '只读取和规划：不提供任何需要询问的操作，不写入任何内容，问题会一直等我回答',
    },
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
  workbench: zhCNWorkbench,
  errorCode: zhCNErrorCodes,
  app: {
    startFailed: 'Assent 无法启动',
    notStarted: 'Assent 未启动',
    debugSwitches:
      'Assent 不会带着调试开关或削弱沙箱的开关（{{switches}}）启动：这些开关会让其他程序控制受保护窗口，或拆掉隔离页面的防护。',
    dataDirInUse:
      '另一个 Assent 正在使用数据文件夹 {{dir}}。请先关闭它，或用另一个 ASSENT_DATA_DIR 启动这一个。',
    menu: {
      edit: '编辑',
      window: '窗口',
      developer: '开发者',
    },
  },
  runtime: zhCNRuntime,
}
