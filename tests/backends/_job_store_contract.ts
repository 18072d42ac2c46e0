// The one contract every JobStore must meet (disk, memory), run as steps of one test. Each store's
// *_test.ts (tests/backends/local, tests/backends/memory) calls it with a factory that returns a fresh, empty store.

import { type JobRecord, startRecord } from "../../lib/core/jobs/job_state.ts";
import type { JobStore } from "../../lib/ops/ports/job_store.ts";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../_assert.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

function record(id: string, startedAt: number, command = `echo ${id}`): JobRecord {
  return startRecord({
    id,
    command,
    cwd: "/work",
    cookie: `instance/${id}`,
    pid: 4000,
    serverPid: Number(id.split("-")[0]),
    startedAt,
    logCapBytes: 1024,
  });
}

/** Reserves `id` and appends `text` to its log. */
async function withLog(store: JobStore, id: string, text: string | Uint8Array): Promise<void> {
  assert(await store.reserve(id));
  const log = store.openLog(id, 1024 ** 3);
  log.append(typeof text === "string" ? enc.encode(text) : text);
  log.close();
}

export async function jobStoreContract(
  t: Deno.TestContext,
  fresh: () => JobStore,
): Promise<void> {
  await t.step("an empty store has no ids and no records", async () => {
    const store = fresh();
    assertEquals(await store.ids(), []);
    assertEquals(await store.list(), []);
    assertEquals(await store.read("1-1"), undefined);
    assertEquals(await store.logSize("1-1"), 0);
  });

  await t.step("reserve takes an id once and starts an empty log", async () => {
    const store = fresh();
    assertEquals(await store.reserve("10-1"), true);
    assertEquals(await store.reserve("10-1"), false);
    assertEquals(await store.logSize("10-1"), 0);
    assertEquals(await store.readTail("10-1", 100), { text: "", omittedBytes: 0, logBytes: 0 });
    assertEquals(await store.ids(), ["10-1"]);
    // Reserved but never written: no record to list yet.
    assertEquals(await store.list(), []);
  });

  await t.step("a written record reads back equal, and a rewrite replaces it", async () => {
    const store = fresh();
    const first = record("10-1", 1000);
    assert(await store.reserve(first.id));
    await store.write(first);
    assertEquals(await store.read(first.id), first);
    const ended: JobRecord = { ...first, status: "failed", exitCode: 2, endedAt: 2000 };
    await store.write(ended);
    assertEquals(await store.read(first.id), ended);
    // The store keeps its own copy: changing the caller's object changes nothing stored.
    ended.exitCode = 99;
    assertEquals((await store.read(first.id))?.exitCode, 2);
  });

  await t.step("read answers undefined for unknown and malformed ids", async () => {
    const store = fresh();
    assertEquals(await store.read("10-9"), undefined);
    assertEquals(await store.read("../10-1"), undefined);
    assertEquals(await store.read("job"), undefined);
  });

  await t.step("list is newest first, ties broken by id number (10-10 after 10-9)", async () => {
    const store = fresh();
    for (const r of [record("10-9", 500), record("10-10", 500), record("7-1", 900)]) {
      assert(await store.reserve(r.id));
      await store.write(r);
    }
    assertEquals((await store.list()).map((r) => r.id), ["7-1", "10-10", "10-9"]);
    assertEquals((await store.ids()).sort(), ["10-10", "10-9", "7-1"]);
  });

  await t.step("readTail starts on a character boundary and counts what it left out", async () => {
    const store = fresh();
    await withLog(store, "1-1", `${"é".repeat(1000)}END`);
    const tail = await store.readTail("1-1", 10, 7);
    assertEquals(tail.text, "éééEND");
    assertEquals(tail.logBytes, 2003);
    // 2003 bytes, 10 read, 1 skipped (half an é), plus the 7 the cap dropped.
    assertEquals(tail.omittedBytes, 2003 - 9 + 7);
    assertEquals((await store.readTail("1-1", 1_000_000)).omittedBytes, 0);
    assertEquals(await store.readTail("9-9", 10, 3), { text: "", omittedBytes: 3, logBytes: 0 });
  });

  await t.step(
    "readRange returns the bytes asked for, fewer at the end, none when missing",
    async () => {
      const store = fresh();
      const data = new Uint8Array(70_000).map((_, i) => (i * 31) % 251);
      await withLog(store, "1-1", data);
      assertEquals(await store.logSize("1-1"), 70_000);
      assertEquals(await store.readRange("1-1", 1000, 5), data.slice(1000, 1005));
      assertEquals(await store.readRange("1-1", 69_998, 10), data.slice(69_998));
      assertEquals((await store.readRange("1-1", 80_000, 10)).length, 0);
      assertEquals((await store.readRange("2-2", 0, 10)).length, 0);
    },
  );

  await t.step("appends from several opens of the log add up in order", async () => {
    const store = fresh();
    await withLog(store, "1-1", "one\n");
    const again = store.openLog("1-1", 1024);
    again.append(enc.encode("two\n"));
    again.close();
    assertEquals(dec.decode(await store.readRange("1-1", 0, 100)), "one\ntwo\n");
  });

  await t.step("remove deletes the record and the log; appends to it then fail", async () => {
    const store = fresh();
    const r = record("10-1", 1000);
    await withLog(store, r.id, "output\n");
    await store.write(r);
    const log = store.openLog(r.id, 1024);
    await store.remove(r.id);
    await store.remove(r.id);
    await store.remove("77-7");
    assertEquals(await store.read(r.id), undefined);
    assertEquals(await store.ids(), []);
    assertEquals(await store.logSize(r.id), 0);
    try {
      log.append(enc.encode("late\n"));
    } catch {
      // the log is gone: the memory store says so; a disk handle writes into the unlinked file
    }
    log.close();
    assertEquals(await store.logSize(r.id), 0);
    assertEquals(await store.ids(), []);
    // The id is free again, with an empty log.
    assertEquals(await store.reserve(r.id), true);
    assertEquals(await store.logSize(r.id), 0);
  });

  await t.step("a kill request is remembered per job", async () => {
    const store = fresh();
    assert(await store.reserve("10-1"));
    assert(await store.reserve("10-2"));
    assertEquals(await store.killRequested("10-1"), false);
    await store.requestKill("10-1");
    assertEquals(await store.killRequested("10-1"), true);
    assertEquals(await store.killRequested("10-2"), false);
  });

  await t.step("past the cap the log keeps its head, a marker and the newest output", async () => {
    const store = fresh();
    assert(await store.reserve("1-1"));
    const capBytes = 64 * 1024;
    const log = store.openLog("1-1", capBytes);
    assertEquals(log.capBytes, capBytes);
    const line = enc.encode(`${"x".repeat(999)}\n`);
    let written = 0;
    for (let i = 0; i < 200; i++) {
      log.append(line);
      written += line.length;
      log.enforce();
    }
    log.append(enc.encode("LAST\n"));
    written += 5;
    const { size } = log.enforce();
    log.close();
    assert(size <= capBytes, `${size} > ${capBytes}`);
    assertEquals(await store.logSize("1-1"), size);
    assert(log.droppedBytes > 0);
    assertEquals(log.outputBytes(size), written);
    const text = dec.decode(await store.readRange("1-1", 0, size));
    assert(text.startsWith("x".repeat(999)));
    assertStringIncludes(text, "[anchorfs: output passed the log cap of 65,536 bytes;");
    assert(text.endsWith("x\nLAST\n"), text.slice(-20));
  });

  await t.step("under the cap nothing is cut", async () => {
    const store = fresh();
    assert(await store.reserve("1-1"));
    const log = store.openLog("1-1", 1024);
    log.append(enc.encode(`${"y".repeat(999)}\n`));
    assertEquals(log.enforce(), { size: 1000, cut: false });
    assertEquals(log.droppedBytes, 0);
    // Room kept for a note that would not fit cuts early, leaving that room free.
    const cut = log.enforce(100);
    log.close();
    assertEquals(cut.cut, true);
    assert(cut.size + 100 <= 1024, `${cut.size}`);
    assertEquals(await store.logSize("1-1"), cut.size);
  });

  await t.step("a note goes on a line of its own and is not counted as output", async () => {
    const store = fresh();
    assert(await store.reserve("1-1"));
    const log = store.openLog("1-1", 1024);
    log.append(enc.encode("partial"));
    log.appendNote("[anchorfs: a note]");
    const size = await store.logSize("1-1");
    assertEquals(log.outputBytes(size), 7);
    assertEquals(dec.decode(await store.readRange("1-1", 0, 100)), "partial\n[anchorfs: a note]\n");
    log.close();
    // After close a note still lands (the end of a job writes one last).
    log.appendNote("[after close]");
    assertEquals((await store.readTail("1-1", 14)).text, "[after close]\n");
  });

  await t.step("write refuses a job that was never reserved", async () => {
    const store = fresh();
    await assertRejects(() => store.write(record("10-1", 1000)));
  });
}
