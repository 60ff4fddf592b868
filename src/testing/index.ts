export { scriptedModel } from './scripted-model.js';
export type { ScriptedCall, ScriptedModel, ScriptedModelOptions, ScriptedRespond, ScriptedResponse } from './scripted-model.js';
