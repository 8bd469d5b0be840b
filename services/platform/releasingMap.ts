/**
 * A Map for entries that come and go by the thousand while the map itself lives as long
 * as the process (requests waiting for an answer, mailboxes with work). A value is held
 * through a small box that is emptied when its entry is deleted.
 *
 * Why: V8 grows and shrinks a Map by copying it to a new hash table and leaves the old
 * table a link to the new one. Once one table has lived long enough to be promoted to the
 * old generation, every later table, and every value they held, stays reachable for the
 * young-generation GC until the next full GC, and with it each request's objects, copied
 * twice and promoted. With the values behind emptied boxes, old tables hold only keys and
 * empty boxes.
 */
export class ReleasingMap<K, V> {
  private readonly boxes = new Map<K, { value: V | undefined }>()

  get size(): number {
    return this.boxes.size
  }

  get(key: K): V | undefined {
    return this.boxes.get(key)?.value
  }

  set(key: K, value: V): this {
    const box = this.boxes.get(key)
    if (box === undefined) this.boxes.set(key, { value })
    else box.value = value
    return this
  }

  delete(key: K): boolean {
    const box = this.boxes.get(key)
    if (box === undefined) return false
    box.value = undefined
    return this.boxes.delete(key)
  }

  *values(): IterableIterator<V> {
    for (const box of this.boxes.values()) if (box.value !== undefined) yield box.value
  }
}
