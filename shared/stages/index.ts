export { defineStage, type EngineOutput, type StageDefinition, type StageEngine, type StageGroup } from "./definition.ts";
export { optInNames, optInStages, registeredStages, registeredWhenFound, runnerStagesOf, runsOn, stageDefinition, stageNames, stageRegistry, stagesFor, stagesInGroup, type RegisteredStageName } from "./registry.ts";
