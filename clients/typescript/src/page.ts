/** What `window.paywall.accept64(...)` gets: the base64 of a JSON array of events, each with its
 * `event_name` (`paywall_open`, `template_variables`, `transaction_complete`, ...). A host passes
 * the string to the page unchanged; this reads it, for a host's logs or a test. */
export interface PageEvent {
    event_name: string;
    [key: string]: unknown;
}

export function decodePageEvents(accept64: string): PageEvent[] {
    const decoded: unknown = JSON.parse(Buffer.from(accept64, "base64").toString("utf8"));
    if (!Array.isArray(decoded)) throw new Error("an accept64 argument is a JSON array of events");
    return decoded as PageEvent[];
}

/** The script a web view evaluates to pass `accept64` into the page. */
export function accept64Script(accept64: string): string {
    return `window.paywall.accept64(${JSON.stringify(accept64)});`;
}
