import { z } from "zod";

/** Settings of the provenance (Content Credentials, C2PA) check the probe makes. */
export const ProvenanceConfigSchema = z.object({
  /**
   * The C2PA trust list: PEM certificates of the trust anchors a Content Credentials signer must chain to for
   * `validation: "trusted"`. Empty (default): signatures are checked, nobody is trusted. Production loads the
   * C2PA Trust List's PEM file (see README, Provenance) with `wrangler secret put C2PA_TRUST_ANCHORS < file.pem`.
   */
  C2PA_TRUST_ANCHORS: z.string().default(""),
});
export type ProvenanceConfig = z.infer<typeof ProvenanceConfigSchema>;
