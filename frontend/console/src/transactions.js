// Explicit transactions: while the toggle is on, the editor's statements
// run in one transaction (begun at the first statement) until Commit or
// Rollback ends it.

import { request } from "./api.js";

export class Transactions {
  constructor(onChange) {
    this.id = null;
    this.onChange = onChange;
  }

  // path answers the endpoint a statement runs at: the transaction's,
  // begun now when there is none.
  async path() {
    if (!this.id) {
      const a = await request("POST", "/api/v1/transaction/begin", {});
      this.id = a.transaction_id;
      this.onChange(this.id);
    }
    return `/api/v1/transaction/${encodeURIComponent(this.id)}/query`;
  }

  async end(what) {
    if (!this.id) return null;
    const id = this.id;
    this.id = null;
    this.onChange(null);
    return request("POST", `/api/v1/transaction/${encodeURIComponent(id)}/${what}`);
  }

  commit() {
    return this.end("commit");
  }

  rollback() {
    return this.end("rollback");
  }
}
