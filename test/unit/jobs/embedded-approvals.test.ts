import { createEmbeddedApprovals } from "../../../src/jobs/index.js";
import { approvalsContract } from "./approvals-contract.js";

approvalsContract("embedded", async () => {
  const store = createEmbeddedApprovals();
  return { asker: store, answerer: store, close: () => store.close() };
});
