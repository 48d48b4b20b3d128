import React from "react";
import { format } from "./format";

interface Props {
  label: string;
}

export function Badge({ label }: Props) {
  const text = format(label);
  return <span className="badge">{text}</span>;
}
