import { describe, expect, it } from "vitest";
import { callResource, isObjectReset } from "../../worker/object/resource-rpc.ts";

/** A namespace whose stubs answer from a script: each `get` hands out the next stub, and counts it. */
function namespaceAnswering(...answers: Array<() => Promise<string>>) {
  let stubs = 0;
  const env = {
    RESOURCE: {
      idFromName: (name: string) => name,
      get: () => {
        const answer = answers[stubs++];
        return { inspect: () => (answer ? answer() : Promise.reject(new Error("no more stubs"))) };
      },
    },
  };
  return { env: env as unknown as Env, stubs: () => stubs };
}

const flagged = (message: string, flags: Record<string, boolean>) => Object.assign(new Error(message), flags);

describe("calls to a Resource object that was reset before it answered", () => {
  it("are sent once more to a fresh stub when the error says the object was reset or the call is retryable", async () => {
    for (const error of [
      flagged("Durable Object reset because its code was updated.", { durableObjectReset: true }),
      flagged("Network connection lost.", { retryable: true }),
      new Error("internal error; reference = gq457hd8p2ofilp3gto8akqd"),
    ]) {
      const ns = namespaceAnswering(() => Promise.reject(error), () => Promise.resolve("answered"));
      await expect(callResource<unknown>(ns.env, "https://example.test/a.mp4", (stub) => stub.inspect({} as never))).resolves.toBe("answered");
      expect(ns.stubs()).toBe(2);
    }
  });

  it("are not sent again when the object is overloaded or over its limits, the error is the caller's own, or the second call fails too", async () => {
    const overloaded = flagged("Durable Object is overloaded.", { retryable: true, overloaded: true });
    let ns = namespaceAnswering(() => Promise.reject(overloaded), () => Promise.resolve("answered"));
    await expect(callResource<unknown>(ns.env, "k", (stub) => stub.inspect({} as never))).rejects.toBe(overloaded);
    expect(ns.stubs()).toBe(1);

    // Reset for its own CPU or memory use: the same call would do that again.
    for (const limit of [
      flagged("Durable Object exceeded its CPU time limit and was reset.", { durableObjectReset: true }),
      flagged("Durable Object's isolate exceeded its memory limit and was reset.", { durableObjectReset: true }),
    ]) {
      ns = namespaceAnswering(() => Promise.reject(limit), () => Promise.resolve("answered"));
      await expect(callResource<unknown>(ns.env, "k", (stub) => stub.inspect({} as never))).rejects.toBe(limit);
      expect(ns.stubs()).toBe(1);
    }

    const own = new TypeError("bad call");
    ns = namespaceAnswering(() => Promise.reject(own), () => Promise.resolve("answered"));
    await expect(callResource<unknown>(ns.env, "k", (stub) => stub.inspect({} as never))).rejects.toBe(own);
    expect(ns.stubs()).toBe(1);

    const reset = flagged("reset", { durableObjectReset: true });
    ns = namespaceAnswering(() => Promise.reject(reset), () => Promise.reject(reset), () => Promise.resolve("answered"));
    await expect(callResource<unknown>(ns.env, "k", (stub) => stub.inspect({} as never))).rejects.toBe(reset);
    expect(ns.stubs()).toBe(2);
  });

  it("tells a reset from other failures", () => {
    expect(isObjectReset("internal error; reference = x")).toBe(false);
    expect(isObjectReset(new Error("the remote server ended the body early"))).toBe(false);
    expect(isObjectReset(flagged("x", { durableObjectReset: true }))).toBe(true);
  });
});
