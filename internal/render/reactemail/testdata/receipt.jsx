import { Body, Column, Container, Head, Html, Row, Section, Text, CodeInline } from "@react-email/components";
import * as React from "react";

// A receipt: Row/Column, a mapped list with keys, a computed total.
export default function Receipt(props) {
  const items = props.items || [];
  const total = items.reduce((sum, item) => sum + item.quantity * item.cents, 0);
  const money = (cents) => props.currency + " " + (cents / 100).toFixed(2);
  return (
    <Html>
      <Head>
        <title>{`Receipt ${props.number}`}</title>
      </Head>
      <Body>
        <Container>
          <Text>Receipt <CodeInline>{props.number}</CodeInline></Text>
          <Section>
            {items.map((item, i) => (
              <Row key={item.sku}>
                <Column style={{ width: "70%" }}>{i + 1}. {item.name}</Column>
                <Column align="right">{item.quantity} × {money(item.cents)}</Column>
              </Row>
            ))}
          </Section>
          <Row>
            <Column>Total</Column>
            <Column align="right"><strong>{money(total)}</strong></Column>
          </Row>
          {items.length === 0 && <Text>No items.</Text>}
        </Container>
      </Body>
    </Html>
  );
}
