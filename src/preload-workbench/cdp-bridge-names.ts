/** DOM event names the CDP host's two workbench scripts talk through: the
 *  isolated world holds the binding; the main world gets `assentGui`. */
export const GUI_REQUEST_EVENT = 'assent-gui:request'
export const GUI_RESPONSE_EVENT = 'assent-gui:response'
export const WORKBENCH_RECEIVE = '__assentWorkbenchReceive'
