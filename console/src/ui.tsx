// Shared pieces of the page: messages and labelled fields. Errors are role="alert" so a
// screen reader announces them, and every input has a real <label>.
import type { ComponentChildren } from 'preact';

export function ErrorMessage({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

/** A labelled control with its error (the API's own message) right under it. */
export function Field(props: { id: string; label: string; error?: string; hint?: string; children: ComponentChildren }) {
  return (
    <div class={props.error ? 'field has-error' : 'field'}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint ? <small class="hint">{props.hint}</small> : null}
      {props.error ? (
        <small class="field-error" role="alert" id={`${props.id}-error`}>
          {props.error}
        </small>
      ) : null}
    </div>
  );
}
