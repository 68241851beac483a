import { Html, Body, Text, Font, Head, Heading } from "@react-email/components";
import { Fragment } from "react";

type Level = "info" | "warning";
type Props = { level: Level; lines: string[]; footer?: string };

function Banner({ level }: { level: Level }) {
  return level === "warning" ? <Heading as="h2" style={{ color: "#b00" }}>Warning</Heading> : <Heading as="h2">Notice</Heading>;
}

// Local components, fragments, a union type and an optional prop.
export default function Notice({ level, lines, footer }: Props) {
  return (
    <Html dir="ltr">
      <Head>
        <Font fontFamily="Roboto" fallbackFontFamily="Verdana" webFont={{ url: "https://fonts.example.com/roboto.woff2", format: "woff2" }} />
      </Head>
      <Body>
        <Banner level={level} />
        {lines.map((line, i) => (
          <Fragment key={i}>
            <Text>{line}</Text>
          </Fragment>
        ))}
        {footer ? <Text style={{ fontSize: 12 }}>{footer}</Text> : null}
      </Body>
    </Html>
  );
}
