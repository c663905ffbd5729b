from awsglue.context import GlueContext
from awsglue.dynamicframe import DynamicFrame
from pyspark.context import SparkContext

glue = GlueContext(SparkContext.getOrCreate())
rows = glue.spark_session.read.option("header", "true").csv("s3://settlements/daily/")
keyed = rows.selectExpr("CAST(card_id AS STRING) AS key", "to_json(struct(*)) AS value")
SINK = {"connectionName": "payments-msk", "topicName": "card-settlements", "classification": "json"}
glue.write_dynamic_frame.from_options(frame=DynamicFrame.fromDF(keyed.repartition(30), glue, "settlements"),
                                      connection_type="kafka", connection_options=SINK)
