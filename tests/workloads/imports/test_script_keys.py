"""The records' key column, read from a script in every form Spark and Glue set it; the writer's
client.id and bootstrap servers. Scripts are read, never run."""
import pytest

from workloads.imports.keys import Key, sql_column
from workloads.imports.script import read_script

HEAD = "from pyspark.sql import functions as F\nfrom pyspark.sql.functions import col, expr, struct, to_json\n"
WRITE = '.write.format("kafka").option("topic", "settlements").save()'

FORMS = {
    'col("x").alias("key")': 'df.select(col("card_id").alias("key"), to_json(struct("*")).alias("value"))' + WRITE,
    'F.col("x").alias("key") in a select': 'df.select(F.col("card_id").alias("key"), F.to_json(F.struct("*")).alias("value"))' + WRITE,
    'a cast column aliased': 'df.select(F.col("card_id").cast("string").alias("key"), to_json(struct("*")).alias("value"))' + WRITE,
    'df["x"].alias("key")': 'df.select(df["card_id"].alias("key"), to_json(struct("*")).alias("value"))' + WRITE,
    'selectExpr("x AS key")': 'df.selectExpr("card_id AS key", "to_json(struct(*)) AS value")' + WRITE,
    'selectExpr("CAST(x AS STRING) AS key")': 'df.selectExpr("CAST(card_id AS STRING) AS key", "to_json(struct(*)) AS value")' + WRITE,
    'expr("x AS key")': 'df.select(expr("card_id AS key"), to_json(struct("*")).alias("value"))' + WRITE,
    'withColumn("key", col)': 'df.withColumn("key", F.col("card_id")).select("key", to_json(struct("*")).alias("value"))' + WRITE,
    'withColumn("key", expr(CAST))': 'df.withColumn("key", expr("CAST(card_id AS STRING)"))' + WRITE,
    'withColumnRenamed("x", "key")': 'df.withColumnRenamed("card_id", "key")' + WRITE,
    "a Glue sink's key option": ('glue.write_dynamic_frame.from_options(frame=dyf, connection_type="kafka", '
                                 'connection_options={"connectionName": "msk", "topicName": "settlements", "key": "card_id"})'),
    "a Glue sink's options named first": ('OPTIONS = {"connectionName": "msk", "topicName": "settlements", "key": "card_id"}\n'
                                          'glue.write_dynamic_frame.from_options(frame=dyf, connection_type="kafka", '
                                          'connection_options=OPTIONS)'),
    "a job parameter as the column": ('args = getResolvedOptions(sys.argv, ["key_column"])\n'
                                      'df.select(F.col(args["key_column"]).alias("key"))' + WRITE),
}


@pytest.mark.parametrize("form", FORMS)
def test_each_form_of_the_key_gives_its_column_and_the_topic(form):
    facts = read_script(HEAD + FORMS[form], {"key_column": "card_id"})
    assert (facts.key, facts.topic) == (Key("card_id"), "settlements")


def test_a_key_of_several_columns_is_kept_as_its_expression():
    assert read_script(HEAD + 'df.select(F.concat(F.col("a"), F.col("b")).alias("key"))' + WRITE).key == Key(
        None, "F.concat(F.col('a'), F.col('b'))")
    assert read_script(HEAD + 'df.selectExpr("concat(a, b) AS key")' + WRITE).key == Key(None, "concat(a, b)")


def test_no_key_and_other_aliases_are_not_keys():
    facts = read_script(HEAD + 'df.selectExpr("card_id AS monkey", "to_json(struct(*)) AS value")'
                        '.select(col("v").alias("keys"))' + WRITE)
    assert facts.key is None


def test_sql_columns():
    assert [sql_column(t) for t in ("x", "t.x", "`x`", "CAST(x AS STRING)", "cast( t.x as varchar(20) )", "concat(a, b)",
                                    "x + 1")] == ["x", "x", "x", "x", "x", None, None]


def test_the_writers_client_id_and_bootstrap_servers():
    facts = read_script(HEAD + 'SERVERS = "b-1.x:9096,b-2.x:9096"\ndf.write.format("kafka").option("kafka.bootstrap.servers", '
                        'SERVERS).option("kafka.client.id", "settlement-load").option("topic", "t").save()')
    assert (facts.client_id, facts.bootstrap_servers) == ("settlement-load", ("b-1.x:9096", "b-2.x:9096"))
