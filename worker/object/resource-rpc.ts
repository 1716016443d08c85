import type { InspectCall, InspectReply } from "./resource-object.ts";

/**
 * The one place a Resource Durable Object is addressed. Stubs are typed by the object's class (wrangler
 * types' `DurableObjectNamespace<ResourceObject>`), so RPC replies keep their declared types with no casts:
 * every record field is RPC-serializable (no `unknown`, no recursive JSON type).
 */
export function resourceByName(env: Env, name: string) {
  return env.RESOURCE.get(env.RESOURCE.idFromName(name));
}

/** The object behind a job id's object part (a hex Durable Object id); throws on a malformed id. */
export function resourceById(env: Env, objectId: string) {
  return env.RESOURCE.get(env.RESOURCE.idFromString(objectId));
}

/**
 * Inspects through the object named by the normalised URL. The object itself calls this for page media (another
 * resource's object): declared outside the class, whose body cannot name its own stub's types.
 */
export async function inspectAt(env: Env, name: string, call: InspectCall): Promise<InspectReply> {
  return await resourceByName(env, name).inspect(call);
}
