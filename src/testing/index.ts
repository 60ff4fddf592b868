export { scriptedModel } from './scripted-model.js';
export type {
  ScriptedCall,
  ScriptedModel,
  ScriptedModelOptions,
  ScriptedPrompt,
  ScriptedRespond,
  ScriptedResponse,
  ScriptedVersion,
} from './scripted-model.js';
