import { SELF, env } from "cloudflare:test";
import { it, expect } from "vitest";
it("works", async () => {
  const r = await SELF.fetch("http://x/"); expect(await r.text()).toBe("ok");
  const o = await fetch((env as any).ORIGIN_URL); expect(await o.text()).toBe("hi");
});
