import type { AgentContext, AgentModel, AgentStep } from '../../src/runtime/agent/agent-model.ts'
import { OfflineModel } from '../../src/runtime/agent/offline-model.ts'

/** The offline model, recording a copy of what it was handed at each step,
 *  and failing the next step it is asked for when told to. */
export class RecordingModel implements AgentModel {
  readonly contexts: AgentContext[] = []
  failNext = false
  private readonly inner = new OfflineModel()

  async next(context: AgentContext): Promise<AgentStep> {
    this.contexts.push(structuredClone(context))
    if (this.failNext) {
      this.failNext = false
      throw new Error('the model went away')
    }
    return this.inner.next(context)
  }
}
